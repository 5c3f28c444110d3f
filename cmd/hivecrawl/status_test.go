package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// controlBackend is a localapi.Backend over a real config store and
// governor, the way the client wires them: the governor watches the store,
// so a change has reached it by the time the API answers.
type controlBackend struct {
	store *config.Store
	gov   *governor.Governor
}

func (b *controlBackend) Status(context.Context) (localapi.Status, error) {
	g := b.gov.Status()
	return localapi.Status{
		State: string(g.State), Reasons: g.Reasons,
		Download: localapi.Rate{Current: g.DownRate, Cap: g.DownCap},
		Upload:   localapi.Rate{Current: g.UpRate, Cap: g.UpCap},
		CPU:      localapi.CPU{Own: g.OwnCPU, Other: g.OtherCPU, Cap: g.CPUCap},
		Memory:   localapi.Memory{RSS: g.RSS, Cap: g.MemoryCap},
		Transfer: localapi.Transfer{Today: g.Usage.DayBytes, Month: g.Usage.MonthBytes, DailyQuota: g.DailyQuota},
	}, nil
}

func (b *controlBackend) Config(context.Context) (json.RawMessage, error) {
	return json.Marshal(b.store.Get())
}

func (b *controlBackend) SetConfig(_ context.Context, changes []localapi.Change) error {
	cc := make([]config.Change, len(changes))
	for i, c := range changes {
		cc[i] = config.Change{Key: c.Key, Value: c.Value}
	}
	err := b.store.Apply(cc...)
	if errors.Is(err, config.ErrInvalid) {
		return localapi.Invalid(err)
	}
	return err
}

func (b *controlBackend) Pause(context.Context) error {
	return b.store.Update(func(c *config.Config) error { c.Paused = true; return nil })
}

// Finish pauses at once: this backend runs no task.
func (b *controlBackend) Finish(ctx context.Context) error { return b.Pause(ctx) }

func (b *controlBackend) Resume(context.Context) error {
	return b.store.Update(func(c *config.Config) error {
		c.Paused, c.SnoozeUntil = false, time.Time{}
		return nil
	})
}

func (b *controlBackend) Snooze(_ context.Context, d string) (time.Time, error) {
	until, err := config.SnoozeUntil(time.Now(), d)
	if err != nil {
		return time.Time{}, localapi.Invalid(err)
	}
	return until, b.store.Update(func(c *config.Config) error { c.SnoozeUntil = until; return nil })
}

type ctlIdle struct{}

func (ctlIdle) Sample(context.Context) (governor.Reading, error) {
	return governor.Reading{TotalCPU: 3, ProcessCPU: 1, RSS: 40 << 20}, nil
}

// runningClient starts a store, a governor fed by its updates and the
// local API under a fresh --home, and returns the home.
func ctlClient(t *testing.T) (string, *controlBackend) {
	t.Helper()
	home := t.TempDir()
	dirs, _ := paths.Resolve(home)
	if err := dirs.Ensure(); err != nil {
		t.Fatal(err)
	}
	store := config.Open(dirs.ConfigFile())
	ctx, cancel := context.WithCancel(context.Background())
	gov, err := governor.New(ctx, store.Get(), governor.Options{Sampler: ctlIdle{}})
	if err != nil {
		t.Fatal(err)
	}
	b := &controlBackend{store: store, gov: gov}
	stopWatch := store.Watch(gov.Apply)
	srv, err := localapi.Listen(b, localapi.Options{InfoFile: dirs.APIFile()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2)
	go func() { gov.Serve(ctx, nil); done <- struct{}{} }()
	go func() { srv.Serve(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done; stopWatch() })
	for range 200 {
		if _, err := loopback.ReadInfo(dirs.APIFile()); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return home, b
}

func ctlRun(f func(context.Context, []string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := f(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func ctlCmd(name string) func(context.Context, []string, *bytes.Buffer, *bytes.Buffer) int {
	m := map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
		"status": statusMain, "pause": pauseMain, "resume": resumeMain, "snooze": snoozeMain, "set": setMain, "finish": finishMain,
	}
	f := m[name]
	return func(ctx context.Context, args []string, out, errb *bytes.Buffer) int { return f(ctx, args, out, errb) }
}

func TestControlCommands(t *testing.T) {
	home, b := ctlClient(t)
	steps := []struct {
		name     string
		cmd      string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
		check    func(t *testing.T)
	}{
		{"status running", "status", nil, 0, "Hivecrawl is running", "", nil},
		{"set caps with units", "set", []string{"download=200KB/s", "upload=1.5MiB/s", "cpu=30%", "memory=512MB", "connections=6", "threads=2"}, 0, "Set download=200KB/s", "", func(t *testing.T) {
			if r := b.gov.Down().Rate(); r != 200000 {
				t.Errorf("governor download cap %d, want 200000", r)
			}
			if r := b.gov.Up().Rate(); r != 1572864 {
				t.Errorf("governor upload cap %d", r)
			}
			if c := b.gov.Conns().Cap(); c != 6 {
				t.Errorf("connection cap %d", c)
			}
			if c := b.store.Get(); c.Threads != 2 || c.CPU != 30 || c.Memory != 512e6 {
				t.Errorf("config %+v", c)
			}
		}},
		{"status shows caps", "status", nil, 0, "of 200 KB/s", "", nil},
		{"set unknown key", "set", []string{"colour=blue"}, 1, "", `unknown key "colour"`, nil},
		{"set bad value keeps old", "set", []string{"download=1MB/s", "threads=0"}, 1, "", "threads must be between 1", func(t *testing.T) {
			if r := b.gov.Down().Rate(); r != 200000 {
				t.Errorf("a refused set changed the cap to %d", r)
			}
		}},
		{"set not a pair", "set", []string{"download"}, 2, "", "not KEY=VALUE", nil},
		{"set help lists keys", "set", []string{"--help"}, 0, "quota_reset_day", "", nil},
		{"set without pairs shows usage", "set", nil, 2, "", "usage: hivecrawl set", nil},
		{"pause", "pause", nil, 0, "Hivecrawl is paused by you\n", "", nil},
		{"status json while paused", "status", []string{"--json"}, 0, `"state": "paused"`, "", nil},
		{"resume", "resume", nil, 0, "Hivecrawl is running", "", nil},
		{"snooze tomorrow", "snooze", []string{"tomorrow"}, 0, "Snoozed until", "", func(t *testing.T) {
			if p, r := b.gov.Paused(); !p || !strings.HasPrefix(r[0], "Snoozed until") {
				t.Errorf("governor after snooze: %v %v", p, r)
			}
		}},
		{"snooze bad", "snooze", []string{"forever"}, 1, "", "snooze", nil},
		{"resume ends snooze", "resume", nil, 0, "Hivecrawl is running", "", nil},
		{"finish with nothing running pauses", "finish", nil, 0, "Hivecrawl is paused by you\n", "", nil},
		{"resume after finish", "resume", nil, 0, "Hivecrawl is running", "", nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, out, errOut := ctlRun(ctlCmd(s.cmd), append([]string{"--home", home}, s.args...)...)
			if code != s.wantCode || !strings.Contains(out, s.wantOut) || !strings.Contains(errOut, s.wantErr) {
				t.Fatalf("%s %v: code %d\nstdout: %s\nstderr: %s", s.cmd, s.args, code, out, errOut)
			}
			if s.check != nil {
				s.check(t)
			}
		})
	}
	dirs, _ := paths.Resolve(home)
	if c, err := config.Load(dirs.ConfigFile()); err != nil || c.Download != 200000 {
		t.Errorf("settings not persisted: %+v, %v", c, err)
	}
}

func TestSelfCommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hivecrawl", "status"}, "hivecrawl"},
		{[]string{"bin/hivecrawl", "status", "--home", "/tmp/hc"}, "bin/hivecrawl --home /tmp/hc"},
		{[]string{"./hivecrawl", "pause", "-home=/tmp/x"}, "./hivecrawl --home /tmp/x"},
		{[]string{"hivecrawl", "status", "--home"}, "hivecrawl"},
	} {
		if got := selfCommand(tt.args); got != tt.want {
			t.Errorf("selfCommand(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestControlNotRunning(t *testing.T) {
	home := t.TempDir()
	for _, name := range []string{"status", "pause", "resume", "snooze", "finish"} {
		code, _, errOut := ctlRun(ctlCmd(name), "--home", home)
		if code != 1 || !strings.HasPrefix(errOut, "hivecrawl is not running: start it with '") || !strings.Contains(errOut, " run --headless' without a desktop") {
			t.Errorf("%s: code %d, stderr %q", name, code, errOut)
		}
	}
	// set without a client changes the file for the next start.
	code, out, errOut := ctlRun(ctlCmd("set"), "--home", home, "download=300KB/s")
	if code != 0 || !strings.Contains(out, "next start") {
		t.Fatalf("offline set: %d %q %q", code, out, errOut)
	}
	c, err := config.Load(filepath.Join(home, "config", paths.ConfigName))
	if err != nil || c.Download != 300000 {
		t.Fatalf("offline set not saved: %+v, %v", c, err)
	}
}

func TestOverlayLine(t *testing.T) {
	half := localapi.Zone{Lo: []float64{0, 0, 0}, Hi: []float64{0.5, 1, 1}}
	tests := []struct {
		name string
		o    localapi.Overlay
		want string
	}{
		{"solo", localapi.Overlay{Mode: "solo", Member: true, Zones: []localapi.Zone{{Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1}}}},
			"solo mode: a one-peer overlay holding the whole space"},
		{"joining", localapi.Overlay{Mode: "network", Network: "x"}, `network "x": joining the overlay`},
		{"member", localapi.Overlay{Mode: "network", Member: true, Peers: 7, Zones: []localapi.Zone{half}, Neighbours: make([]localapi.Neighbour, 3)},
			"network: 1 zone(s), 50.0 % of the space, 3 neighbours, 7 peers connected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlayLine(&tt.o); got != tt.want {
				t.Fatalf("overlayLine = %q, want %q", got, tt.want)
			}
		})
	}
}
