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
// last reading: whether the computer runs on battery, false when it
// cannot tell (a desktop, no UPower).
func (g *Governor) readPower(ctx context.Context, now time.Time) {
	if g.opts.Power == nil || now.Before(g.nextPower) {
		return
	}
	g.nextPower = now.Add(powerEvery)
	on := g.readFlag(ctx, g.opts.Power.OnBattery, &g.powerFailed,
		"Cannot tell whether the computer runs on battery; crawling as on mains power")
	g.mu.Lock()
	g.pol.onBattery = on
	g.mu.Unlock()
}

// readPresence reads the presence source at every tick, while the idle
// limits are on: they apply within one sampling period of the machine
// going idle. A failed reading counts as in use.
func (g *Governor) readPresence(ctx context.Context) {
	g.mu.Lock()
	on := g.cfg.Idle.On
	g.mu.Unlock()
	idle := false
	if g.opts.Presence != nil && on {
		idle = g.readFlag(ctx, g.opts.Presence.Idle, &g.presenceFailed,
			"Cannot tell whether the computer is in use; the limits for use apply")
	}
	g.mu.Lock()
	if idle != g.pol.idle {
		g.opts.Logger.Info("Computer idle state changed; limits follow", "idle", idle)
	}
	g.pol.idle = idle
	g.mu.Unlock()
}

// readFlag makes one reading of a fact of the machine within
// powerTimeout. A failed reading is false, logged with why when it first
// fails (*failed, Tick's goroutine only), not at every try.
func (g *Governor) readFlag(ctx context.Context, read func(context.Context) (bool, error), failed *bool, why string) bool {
	ctx, cancel := context.WithTimeout(ctx, powerTimeout)
	defer cancel()
	v, err := read(ctx)
	if err != nil {
		if !*failed {
			g.opts.Logger.Info(why, "err", err)
		}
		*failed = true
		return false
	}
	*failed = false
	return v
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
