package governor

import (
	"context"
	"testing"
)

// TestWindowsPowerAndPresence reads the power source and the time since
// the last input with Windows' own calls. installer's Wine test runs it
// under Wine, whose machine has no battery; on a Windows laptop the
// figures are its own.
func TestWindowsPowerAndPresence(t *testing.T) {
	ctx := context.Background()
	on, err := SystemPower().OnBattery(ctx)
	if err != nil {
		t.Fatalf("power: %v", err)
	}
	idle, err := SystemPresence().Idle(ctx)
	if err != nil {
		t.Fatalf("presence: %v", err)
	}
	t.Logf("on battery: %v; no input for %v: %v", on, IdleAfter, idle)
}
