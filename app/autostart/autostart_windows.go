package autostart

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// runKey is the current user's list of programs started at login.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Path names the registry value.
func (e Entry) Path() string { return `HKCU\` + runKey + `\` + Name }

// Set turns starting at login on or off.
func (e Entry) Set(on bool) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: open the Run key: %w", err)
	}
	defer k.Close()
	if !on {
		if err := k.DeleteValue(Name); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf("autostart: %w", err)
		}
		return nil
	}
	if err := k.SetStringValue(Name, commandLine(e.Exe, e.Args)); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Enabled reports whether the Run key starts the program.
func (e Entry) Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		return false, nil
	}
	defer k.Close()
	_, _, err = k.GetStringValue(Name)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// commandLine quotes the program and arguments that have spaces.
func commandLine(exe string, args []string) string {
	parts := []string{`"` + exe + `"`}
	for _, a := range args {
		if strings.ContainsAny(a, " \t") {
			a = `"` + a + `"`
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
