package paths

import (
	"errors"
	"os"
)

// dataBase is %LocalAppData%: task queues and spools are machine-local and
// should not roam with the profile.
func dataBase() (string, error) {
	if dir := os.Getenv("LocalAppData"); dir != "" {
		return dir, nil
	}
	return "", errors.New("%LocalAppData% is not set")
}

// stateBase is %LocalAppData%, as dataBase: the log stays on the machine.
func stateBase() (string, error) { return dataBase() }
