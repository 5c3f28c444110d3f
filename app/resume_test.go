package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// A client killed 9 times and stopped gracefully 3 times while crawling a
// 500-page site resumes each time from its last checkpoint: the site sees
// at most 1.15 requests per page,
// the result holds every page exactly once, and the transfer counter is
// within 5 % of the bytes the site served.
func TestKilledClientResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills client processes")
	}
	const pages = 500
	srv := newTreeSite(t, pages, 40, 0)
	requests := func() int { n, _ := srv.pageRequests(); return n }

	home := t.TempDir()
	quietConfig(t, home, "")
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte(srv.URL+"/p0.html\n"), 0o600)
	var out strings.Builder
	start := func() *exec.Cmd {
		return helperClient(t, os.Args[0], home, seeds, &out, "HIVECRAWL_TEST_DEPTH=20", "HIVECRAWL_TEST_DELAY=40ms")
	}
	defer func() {
		if t.Failed() {
			t.Logf("client output:\n%s", out.String())
		}
	}()
	r := rand.New(rand.NewPCG(1, 2))
	for stop := 1; stop <= 12; stop++ {
		cmd := start()
		// Stop somewhere in the next stretch of the crawl, at a random page.
		at := requests() + 20 + r.IntN(20)
		eventuallyFor(t, 2*time.Minute, fmt.Sprintf("request %d before stop %d", at, stop), func() bool { return requests() >= at })
		time.Sleep(time.Duration(r.IntN(200)) * time.Millisecond) // not always just after a page
		if stop%4 == 0 {
			cmd.Process.Signal(syscall.SIGTERM) // stops 4, 8 and 12 are graceful
		} else {
			cmd.Process.Kill()
		}
		cmd.Wait()
		os.Remove(filepath.Join(home, "config", "api.json"))
	}
	cmd := start()
	var st localapi.Status
	eventuallyFor(t, 3*time.Minute, "the crawl to finish after the kills", func() bool {
		api, err := localapi.Dial(filepath.Join(home, "config", "api.json"))
		if err != nil {
			return false
		}
		st, err = api.Status(context.Background())
		return err == nil && st.Pages.Total > 0 && len(st.Tasks.Running) == 0
	})

	// Stop it gracefully; the counters on disk are then final.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("graceful stop: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(home, "data", paths.UsageName))
	if err != nil {
		t.Fatal(err)
	}
	var usage governor.Usage
	if err := json.Unmarshal(b, &usage); err != nil {
		t.Fatal(err)
	}

	// The result: every page once.
	spools, _ := filepath.Glob(filepath.Join(home, "data", "results", "*.spool"))
	if len(spools) != 1 {
		t.Fatalf("%d results, want 1", len(spools))
	}
	got := map[string]int{}
	if err := crawler.ReadSpool(spools[0], func(p *task.Page) error { got[p.URL]++; return nil }); err != nil {
		t.Fatal(err)
	}
	missing, doubled := 0, 0
	for i := range pages {
		switch got[fmt.Sprintf("%s/p%d.html", srv.URL, i)] {
		case 0:
			missing++
		case 1:
		default:
			doubled++
		}
	}
	if missing > 0 || doubled > 0 || len(got) != pages {
		t.Errorf("result: %d pages, %d missing, %d doubled; want each of the %d once", len(got), missing, doubled, pages)
	}
	n := requests()
	bytesServed := srv.bytesServed()
	counted := usage.TotalBytes
	t.Logf("9 kills, 3 graceful stops: %d page requests for %d pages (%.3f×); transfer counted %d of %d bytes served (%.1f %%)",
		n, pages, float64(n)/pages, counted, bytesServed, 100*float64(counted)/float64(bytesServed))
	if float64(n) > 1.15*pages {
		t.Errorf("%d page requests for %d pages: over 1.15×", n, pages)
	}
	if d := float64(counted-bytesServed) / float64(bytesServed); d > 0.05 || d < -0.05 {
		t.Errorf("transfer counter %d bytes, %.1f %% off the %d bytes served", counted, 100*d, bytesServed)
	}
}

// eventuallyFor is eventually with its own time limit.
func eventuallyFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
