package governor

import (
	"context"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// Power tells whether the computer runs on battery. SystemPower is the
// platform's; tests pass their own.
type Power interface {
	OnBattery(ctx context.Context) (bool, error)
}

// Presence tells whether nobody uses the computer (no input for a while).
// SystemPresence is the platform's; tests pass their own.
type Presence interface {
	Idle(ctx context.Context) (bool, error)
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

// readPresence reads the presence source at every tick, while the idle
// limits are on: they apply within one sampling period of the machine
// going idle. A failed reading counts as in use, logged when it first
// fails.
func (g *Governor) readPresence(ctx context.Context) {
	g.mu.Lock()
	on := g.cfg.Idle.On
	g.mu.Unlock()
	if g.opts.Presence == nil || !on {
		g.mu.Lock()
		g.pol.idle = false
		g.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, powerTimeout)
	defer cancel()
	idle, err := g.opts.Presence.Idle(ctx)
	if err != nil {
		if !g.presenceFailed {
			g.opts.Logger.Info("Cannot tell whether the computer is in use; the limits for use apply", "err", err)
		}
		g.presenceFailed, idle = true, false
	} else {
		g.presenceFailed = false
	}
	g.mu.Lock()
	if idle != g.pol.idle {
		g.opts.Logger.Info("Computer idle state changed; limits follow", "idle", idle)
	}
	g.pol.idle = idle
	g.mu.Unlock()
}

// effectiveLocked is the configuration in force: the idle limits in place
// of the CPU and bandwidth caps while the computer is idle and they are
// on. g.mu must be held.
func (g *Governor) effectiveLocked() config.Config {
	cfg := g.cfg
	if cfg.Idle.On && g.pol.idle {
		cfg.CPU, cfg.Download, cfg.Upload = cfg.Idle.CPU, cfg.Idle.Download, cfg.Idle.Upload
	}
	return cfg
}
