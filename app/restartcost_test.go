package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// A client killed 20 times while it crawls 8 small hosts of 37 pages, at
// the public web's wait of a second between requests, costs those hosts
// at most 1.15 requests a page, robots.txt included: a restart asks no
// host for its robots.txt again within a day, and repeats at most the
// page it was fetching (a checkpoint a page at that pace).
func TestKillsCostSmallHostsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills client processes")
	}
	const (
		hosts, pages = 8, 37
		kills        = 20
	)
	sites := make([]*treeSite, hosts)
	var seeds strings.Builder
	for i := range sites {
		sites[i] = newTreeSite(t, pages, 10, 0)
		fmt.Fprintf(&seeds, "%s/p0.html\n", sites[i].URL)
	}
	// requests returns every request the hosts answered, robots.txt
	// included, and the distinct pages among them.
	requests := func() (all, distinct int) {
		for _, s := range sites {
			n, d := s.pageRequests()
			s.mu.Lock()
			all += n + s.hits["/robots.txt"]
			s.mu.Unlock()
			distinct += d
		}
		return all, distinct
	}

	home := t.TempDir()
	quietConfig(t, home, "")
	seedFile := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seedFile, []byte(seeds.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	start := func() *exec.Cmd {
		return helperClient(t, os.Args[0], home, seedFile, &out, "HIVECRAWL_TEST_DEPTH=20", "HIVECRAWL_TEST_DELAY=1s")
	}
	defer func() {
		if t.Failed() {
			t.Logf("client output:\n%s", out.String())
		}
	}()
	r := rand.New(rand.NewPCG(3, 4))
	for kill := 1; kill <= kills; kill++ {
		cmd := start()
		// Kill somewhere in the next stretch of the crawl, at a random
		// moment: during a request or a wait.
		all, _ := requests()
		at := all + 6 + r.IntN(10)
		eventuallyFor(t, 2*time.Minute, fmt.Sprintf("request %d before kill %d", at, kill), func() bool { n, _ := requests(); return n >= at })
		time.Sleep(time.Duration(r.IntN(1000)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(filepath.Join(home, "config", "api.json"))
	}
	cmd := start()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	eventuallyFor(t, 3*time.Minute, "the crawl to finish after the kills", func() bool {
		if _, distinct := requests(); distinct < hosts*pages {
			return false
		}
		api, err := localapi.Dial(filepath.Join(home, "config", "api.json"))
		if err != nil {
			return false
		}
		st, err := api.Status(context.Background())
		return err == nil && len(st.Tasks.Running) == 0 && st.Tasks.Queued == 0
	})
	all, distinct := requests()
	ratio := float64(all) / float64(distinct)
	t.Logf("%d kills: %d requests, robots.txt included, for %d pages on %d hosts (%.3f×)", kills, all, distinct, hosts, ratio)
	if ratio > 1.15 {
		t.Errorf("%d requests for %d pages: %.3f×, over 1.15×", all, distinct, ratio)
	}
}
