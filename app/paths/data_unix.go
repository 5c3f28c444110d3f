//go:build !windows && !darwin

package paths

import (
	"errors"
	"os"
	"path/filepath"
)

// dataBase is XDG_DATA_HOME, or ~/.local/share (XDG Base Directory spec).
func dataBase() (string, error) {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", errors.New("XDG_DATA_HOME is not an absolute path")
		}
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// stateBase is XDG_STATE_HOME, or ~/.local/state (XDG Base Directory spec).
func stateBase() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", errors.New("XDG_STATE_HOME is not an absolute path")
		}
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state"), nil
}
