//go:build !linux

package governor

// SystemPower returns the platform's power source: none yet outside Linux
// (Windows and macOS are not read), so crawling goes on as on mains power.
func SystemPower() Power { return nil }

// SystemPresence returns the platform's presence source: none yet outside
// Linux, so the limits for use apply.
func SystemPresence() Presence { return nil }
