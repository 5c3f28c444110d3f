package app

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/testbin"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// A client with 3 threads crawling three hosts that serve only hostile
// 10 MiB pages stays under its memory cap and a little: 300 MB with
// memory=256MB, 160 MB with memory=128MB. The figure is the kernel's
// high-water mark for the client process.
func TestHostileHostsBoundedClientMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts client processes")
	}
	bin := testbin.WithoutRace(t, raceEnabled)
	for _, tc := range []struct{ memory, limit int64 }{{256, 300}, {128, 160}} {
		t.Run(fmt.Sprintf("memory=%dMB", tc.memory), func(t *testing.T) { hostileHosts(t, bin, tc.memory, tc.limit) })
	}
}

func hostileHosts(t *testing.T, bin string, memoryMB, limitMB int64) {
	units := []string{`<a href><span><font><p><em>`, `<p>word `, `<p><b>x</p>`}
	var served atomic.Int64
	var seeds strings.Builder
	for _, unit := range units {
		body := []byte(strings.Repeat(unit, (10<<20)/len(unit)))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write(body)
			served.Add(1)
		}))
		defer srv.Close()
		for i := range 2 {
			fmt.Fprintf(&seeds, "%s/%d.html\n", srv.URL, i)
		}
	}
	home := t.TempDir()
	quietConfig(t, home, fmt.Sprintf(`, "memory": "%dMB", "threads": 3`, memoryMB))
	seedFile := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seedFile, []byte(seeds.String()), 0o600)

	var out strings.Builder
	cmd := helperClient(t, bin, home, seedFile, &out)
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("client output:\n%s", out.String())
		}
	}()
	deadline := time.Now().Add(3 * time.Minute)
	var st localapi.Status
	for {
		if time.Now().After(deadline) {
			t.Fatalf("gave up: %d hostile pages served, status %+v", served.Load(), st.Tasks)
		}
		time.Sleep(200 * time.Millisecond)
		api, err := localapi.Dial(filepath.Join(home, "config", "api.json"))
		if err != nil {
			continue
		}
		if st, err = api.Status(context.Background()); err == nil && st.Pages.Total >= int64(2*len(units)) {
			break
		}
	}
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("%d hostile 10 MiB pages crawled; client peak resident %d MB", st.Pages.Total, peak>>20)
	if peak > limitMB<<20 {
		t.Errorf("client peak resident memory %d MB, over %d MB", peak>>20, limitMB)
	}
}

// vmHWM returns a process's peak resident size in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skip("no /proc:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
