//go:build !linux && !windows && !darwin

package governor

// SystemPower returns the platform's power source: none on the other
// systems, so crawling goes on as on mains power.
func SystemPower() Power { return nil }

// SystemPresence returns the platform's presence source: none on the
// other systems, so the limits for use apply.
func SystemPresence() Presence { return nil }
