//go:build !windows && !darwin

package paths

import (
	"errors"
	"os"
	"path/filepath"
)

// dataBase is XDG_DATA_HOME, or ~/.local/share (XDG Base Directory spec).
func dataBase() (string, error) { return xdgBase("XDG_DATA_HOME", ".local", "share") }

// stateBase is XDG_STATE_HOME, or ~/.local/state (XDG Base Directory spec).
func stateBase() (string, error) { return xdgBase("XDG_STATE_HOME", ".local", "state") }

// xdgBase is the directory the variable env names, which must be absolute,
// or the default below the home directory.
func xdgBase(env string, def ...string) (string, error) {
	if dir := os.Getenv(env); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", errors.New(env + " is not an absolute path")
		}
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{home}, def...)...), nil
}
