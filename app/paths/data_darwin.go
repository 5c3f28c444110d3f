package paths

import (
	"os"
	"path/filepath"
)

// dataBase is ~/Library/Application Support, where macOS apps keep data.
func dataBase() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "Application Support"), nil
}

// stateBase is ~/Library/Logs, where macOS apps keep logs.
func stateBase() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "Logs"), nil
}
