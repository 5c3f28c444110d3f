package governor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/testkit/dbustest"
)

// systemMock serves python3-dbusmock's template with its parameters as
// the test's system bus (dbustest), and returns a setter of the
// properties of its object path at the bus name.
func systemMock(t *testing.T, template, parameters, name string, path dbus.ObjectPath) func(iface, prop string, v any) {
	t.Helper()
	bus := dbustest.Bus(t)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", bus)
	dbustest.Mock(t, bus, template, parameters, true)
	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return func(iface, prop string, v any) {
		t.Helper()
		err := conn.Object(name, path).Call("org.freedesktop.DBus.Properties.Set", 0, iface, prop, dbus.MakeVariant(v)).Err
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPauseOnBattery: UPower (python3-dbusmock's template on a private
// system bus) says the computer runs on battery, and the next reading,
// at most powerEvery later, pauses crawling with the reason; back on
// mains it resumes; with pause_on_battery off it crawls on battery.
func TestPauseOnBattery(t *testing.T) {
	set := systemMock(t, "upower", `{"OnBattery": false}`, "org.freedesktop.UPower", "/org/freedesktop/UPower")
	setBattery := func(on bool) { t.Helper(); set("org.freedesktop.UPower", "OnBattery", on) }
	power := SystemPower().(*UPower)
	defer power.Close()
	c := &clock{t: monday}
	g, err := New(context.Background(), config.Default(), Options{
		Sampler: &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}}}, Now: c.Now, Power: power,
	})
	if err != nil {
		t.Fatal(err)
	}
	paused := func() bool { return slices.Contains(g.Status().Pauses, PauseBattery) }
	tick := func(d time.Duration) {
		t.Helper()
		c.Add(d)
		if err := g.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	tick(time.Second)
	if paused() {
		t.Fatal("paused for the battery on mains power")
	}
	setBattery(true)
	tick(powerEvery)
	st := g.Status()
	if !paused() || st.State != Paused || !slices.Contains(st.Reasons, "Paused: the computer runs on battery; crawling resumes on mains power") {
		t.Fatalf("on battery: state %s, reasons %q; want paused for the battery", st.State, st.Reasons)
	}
	setBattery(false)
	tick(powerEvery)
	if paused() {
		t.Fatalf("back on mains, still paused: %q", g.Status().Reasons)
	}
	setBattery(true)
	cfg := config.Default()
	cfg.PauseOnBattery = false
	g.Apply(cfg)
	tick(powerEvery)
	if paused() {
		t.Fatal("paused for the battery with pause_on_battery off")
	}
}

// TestPowerWithoutUPower: with no system bus to ask, the reading fails and
// crawling goes on as on mains power.
func TestPowerWithoutUPower(t *testing.T) {
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/hivecrawl-no-bus")
	power := SystemPower().(*UPower)
	if _, err := power.OnBattery(context.Background()); err == nil {
		t.Fatal("read OnBattery with no bus")
	}
	c := &clock{t: monday}
	g, err := New(context.Background(), config.Default(), Options{
		Sampler: &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1}}}, Now: c.Now, Power: power,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Add(time.Second)
	if err := g.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := g.Status(); st.State != Running {
		t.Fatalf("state %s (%q) without UPower, want running", st.State, st.Reasons)
	}
}

// TestIdleLimits: with the idle limits on, logind's IdleHint (dbusmock's
// logind template on a private system bus) puts them in force at the next
// tick, one sampling period, and they go when the computer is in use
// again; off, the computer's idleness changes nothing.
func TestIdleLimits(t *testing.T) {
	set := systemMock(t, "logind", `{"IdleHint": false}`, "org.freedesktop.login1", "/org/freedesktop/login1")
	setIdle := func(idle bool) { t.Helper(); set("org.freedesktop.login1.Manager", "IdleHint", idle) }
	presence := SystemPresence().(*Logind)
	defer presence.Close()
	cfg := config.Default()
	cfg.Download, cfg.CPU = 100_000, 20
	cfg.Idle = config.IdleLimits{On: true, CPU: 80, Download: 1_000_000}
	c := &clock{t: monday}
	g, err := New(context.Background(), cfg, Options{
		Sampler: &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1}}}, Now: c.Now, Presence: presence,
	})
	if err != nil {
		t.Fatal(err)
	}
	tick := func() {
		t.Helper()
		c.Add(time.Second)
		if err := g.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	caps := func() (int64, float64) { return g.Down().Rate(), g.Status().CPUCap }
	tick()
	if down, cpu := caps(); down != 100_000 || cpu != 20 {
		t.Fatalf("in use: download cap %d, CPU cap %v; want the limits for use, 100000 and 20", down, cpu)
	}
	setIdle(true)
	tick()
	if down, cpu := caps(); down != 1_000_000 || cpu != 80 {
		t.Fatalf("idle: download cap %d, CPU cap %v; want the idle limits, 1000000 and 80", down, cpu)
	}
	setIdle(false)
	tick()
	if down, cpu := caps(); down != 100_000 || cpu != 20 {
		t.Fatalf("in use again: download cap %d, CPU cap %v; want 100000 and 20", down, cpu)
	}
	setIdle(true)
	cfg.Idle.On = false
	g.Apply(cfg)
	tick()
	if down, _ := caps(); down != 100_000 {
		t.Fatalf("idle limits off: download cap %d, want 100000 whatever the idleness", down)
	}
}
