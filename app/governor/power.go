package governor

import (
	"context"
	"time"
)

// Power tells whether the computer runs on battery. SystemPower is the
// platform's; tests pass their own.
type Power interface {
	OnBattery(ctx context.Context) (bool, error)
}

// powerEvery is how often Tick reads the power source: a D-Bus round trip
// on Linux, so within the 10 s a volunteer expects a pause on unplugging
// to take, without asking every second.
const powerEvery = 5 * time.Second

// powerTimeout bounds one reading.
const powerTimeout = 2 * time.Second

// readPower reads the power source when powerEvery has passed since the
// last reading, and reports whether the computer runs on battery, as
// last known (false when it cannot tell: a desktop, no UPower). A failed
// reading is logged when it first fails, not at every try.
func (g *Governor) readPower(ctx context.Context, now time.Time) {
	if g.opts.Power == nil || now.Before(g.nextPower) {
		return
	}
	g.nextPower = now.Add(powerEvery)
	ctx, cancel := context.WithTimeout(ctx, powerTimeout)
	defer cancel()
	on, err := g.opts.Power.OnBattery(ctx)
	if err != nil {
		if !g.powerFailed {
			g.opts.Logger.Info("Cannot tell whether the computer runs on battery; crawling as on mains power", "err", err)
		}
		g.powerFailed, on = true, false
	} else {
		g.powerFailed = false
	}
	g.mu.Lock()
	g.pol.onBattery = on
	g.mu.Unlock()
}
