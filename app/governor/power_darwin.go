package governor

import (
	"context"
	"fmt"
	"os/exec"
)

// macOS's own tools, which need no cgo: pmset for the power source and
// ioreg for the time since the last input (IOHIDSystem's HIDIdleTime).

// pmsetPower reads `pmset -g batt`.
type pmsetPower struct{}

// SystemPower returns the platform's power source: pmset on macOS.
func SystemPower() Power { return pmsetPower{} }

// OnBattery runs `pmset -g batt` and reads which source it draws from.
func (pmsetPower) OnBattery(ctx context.Context) (bool, error) {
	out, err := exec.CommandContext(ctx, "/usr/bin/pmset", "-g", "batt").Output()
	if err != nil {
		return false, fmt.Errorf("pmset: %w", err)
	}
	return parsePmset(out)
}

// ioregPresence reads IOHIDSystem's HIDIdleTime with ioreg.
type ioregPresence struct{}

// SystemPresence returns the platform's presence source: ioreg on macOS.
func SystemPresence() Presence { return ioregPresence{} }

// Idle reports whether no input came for IdleAfter.
func (ioregPresence) Idle(ctx context.Context) (bool, error) {
	out, err := exec.CommandContext(ctx, "/usr/sbin/ioreg", "-c", "IOHIDSystem", "-d", "4", "-r", "-k", "HIDIdleTime").Output()
	if err != nil {
		return false, fmt.Errorf("ioreg: %w", err)
	}
	idle, err := parseHIDIdleTime(out)
	if err != nil {
		return false, err
	}
	return idle >= IdleAfter, nil
}
