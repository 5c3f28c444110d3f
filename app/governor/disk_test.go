package governor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// diskScript is a Disk whose reading the test sets.
type diskScript struct {
	mu  sync.Mutex // guards u and err
	u   DiskUsage
	err error
}

func (d *diskScript) Usage(context.Context) (DiskUsage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.u, d.err
}

func (d *diskScript) set(u DiskUsage, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.u, d.err = u, err
}

// TestDiskLimits: within the headroom of either disk limit no new task
// starts (Holding) while crawling goes on; at a limit crawling pauses
// with the figures; below again both end, and the task manager is told
// each time the hold comes, changes or goes. A failed reading keeps the last.
func TestDiskLimits(t *testing.T) {
	cfg := config.Default()
	cfg.DiskMax, cfg.DiskMinFree = 100e6, 50e6
	d := &diskScript{u: DiskUsage{Kept: 10e6, Free: 1e9}}
	var changed atomic.Int32
	c := &clock{t: monday}
	g, err := New(context.Background(), cfg, Options{
		Sampler: &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1}}}, Now: c.Now,
		Disk: d, HoldChanged: func() { changed.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		u          DiskUsage
		err        error
		hold, stop string // what Holding and the pause's reason contain ("" = none)
	}{
		{"far from both", DiskUsage{Kept: 10e6, Free: 1e9}, nil, "", ""},
		{"near the cap", DiskUsage{Kept: 91e6, Free: 1e9}, nil, "keeps 91.0 MB of its 100 MB (disk_max), so no new task starts", ""},
		{"a little given back: still held", DiskUsage{Kept: 85e6, Free: 1e9}, nil, "keeps 85.0 MB of its 100 MB (disk_max)", ""},
		{"clear of the release band", DiskUsage{Kept: 79e6, Free: 1e9}, nil, "", ""},
		{"near it again", DiskUsage{Kept: 91e6, Free: 1e9}, nil, "keeps 91.0 MB of its 100 MB (disk_max)", ""},
		{"at the cap", DiskUsage{Kept: 100e6, Free: 1e9}, nil, "Paused: Hivecrawl keeps 100 MB on disk, its cap (disk_max) is 100 MB", "its cap (disk_max) is 100 MB"},
		{"reading fails: the last holds", DiskUsage{}, errors.New("walk: permission denied"), "its cap (disk_max)", "its cap (disk_max)"},
		{"space given back", DiskUsage{Kept: 20e6, Free: 1e9}, nil, "", ""},
		{"near the free space kept", DiskUsage{Kept: 20e6, Free: 54e6}, nil, "54.0 MB free on the disk, near the 50.0 MB Hivecrawl leaves (disk_min_free)", ""},
		{"a little freed: still held", DiskUsage{Kept: 20e6, Free: 58e6}, nil, "58.0 MB free on the disk, near the 50.0 MB", ""},
		{"at it", DiskUsage{Kept: 20e6, Free: 49e6}, nil, "Paused: 49.0 MB free", "Hivecrawl leaves at least 50.0 MB (disk_min_free)"},
		{"freed", DiskUsage{Kept: 20e6, Free: 2e9}, nil, "", ""},
	}
	holds := 0
	prev := ""
	for _, s := range steps {
		d.set(s.u, s.err)
		ticks(t, g, c, 2) // diskEvery
		hold := g.Holding()
		if (s.hold == "") != (hold == "") || !strings.Contains(hold, s.hold) {
			t.Errorf("%s: Holding() = %q, want %q", s.name, hold, s.hold)
		}
		st := g.Status()
		paused := slices.Contains(st.Pauses, PauseDisk)
		if (s.stop != "") != paused || (paused && !strings.Contains(strings.Join(st.Reasons, "; "), s.stop)) {
			t.Errorf("%s: state %s, reasons %q; want the disk pause %q", s.name, st.State, st.Reasons, s.stop)
		}
		if !paused && s.hold != "" && (st.State == Paused || !strings.Contains(strings.Join(st.Reasons, "; "), s.hold)) {
			t.Errorf("%s: state %s, reasons %q; want crawling with the hold among the reasons", s.name, st.State, st.Reasons)
		}
		if hold != prev {
			holds++
		}
		prev = hold
	}
	if got := int(changed.Load()); got != holds {
		t.Errorf("HoldChanged called %d times, want %d (each time the hold came, changed or went)", got, holds)
	}
	// A task that ended stored its result: the next start reads the disk
	// afresh rather than wait for Tick, however soon after the last
	// reading it ended (that reading missed its result).
	d.set(DiskUsage{Kept: 20e6, Free: 1e9}, nil)
	ticks(t, g, c, 2)
	d.set(DiskUsage{Kept: 92e6, Free: 1e9}, nil)
	if h := g.Holding(); h != "" {
		t.Fatalf("no task ended, no tick: Holding() = %q from a reading not taken", h)
	}
	d.set(DiskUsage{Kept: 80e6, Free: 1e9}, nil)
	g.TaskEnded("")
	if h := g.Holding(); h != "" {
		t.Fatalf("after a task ended, 80 MB of 100: Holding() = %q", h)
	}
	d.set(DiskUsage{Kept: 92e6, Free: 1e9}, nil)
	g.TaskEnded("") // the next one, in the same instant
	if h := g.Holding(); !strings.Contains(h, "keeps 92.0 MB") {
		t.Fatalf("after the next task ended: Holding() = %q, want the fresh reading's hold", h)
	}
	// Raising the cap lifts the hold at once, without a new reading.
	d.set(DiskUsage{Kept: 95e6, Free: 1e9}, nil)
	ticks(t, g, c, 2)
	if g.Holding() == "" {
		t.Fatal("95 MB of 100 MB: no hold")
	}
	cfg.DiskMax = 1e9
	g.Apply(cfg)
	if h := g.Holding(); h != "" {
		t.Errorf("disk_max raised to 1 GB: still holding: %q", h)
	}
}
