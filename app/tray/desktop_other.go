//go:build windows || darwin

package tray

// HasDesktop reports whether a desktop session is there: on Windows and
// macOS a user's program always has one.
func HasDesktop() bool { return true }
