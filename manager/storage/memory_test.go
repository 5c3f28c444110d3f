package storage

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/testbin"
)

// Storing a 1,000-page result as solo mode does (uploaded over the
// protocol, written to WARC and CDXJ, and indexed for search) takes
// bounded memory. The figure is the kernel's high-water mark (VmHWM) of a
// child process that does only that. A store that held the result whole
// (its pages decoded, their texts, one search batch of them all) peaked
// at 98 MB without the search index (64 MB streamed) and 2.8 GB with it.
func TestStoreBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	bin := testbin.WithoutRace(t, raceEnabled)
	for _, tc := range []struct {
		name    string
		search  bool
		limitMB int64
	}{
		{"warc", false, 100},
		// The search index (bleve) analyses each batch with term
		// vectors for phrases and snippets, maps its segment files and
		// merges them in the background. 88 to 91 MB measured (about
		// 35 MB of it the test binary, 10 to 15 MB mapped segment
		// files); 143 to 178 MB with batches of 16 pages, doc values
		// and zap's oversized segment buffers, 380 to 440 MB with the
		// catch-all field and unbounded merges, 2.8 GB before streaming.
		{"warc+search", true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) { storeMemory(t, bin, 1000, tc.search, tc.limitMB) })
	}
}

func storeMemory(t *testing.T, bin string, pages int, withSearch bool, limitMB int64) {
	cmd := exec.Command(bin, "-test.run=^TestHelperStoreResult$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "HIVECRAWL_TEST_STORE_PAGES="+strconv.Itoa(pages),
		"HIVECRAWL_TEST_STORE_SEARCH="+strconv.FormatBool(withSearch))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var peakKB, stored int64 = -1, -1
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[1] == "stored" && f[3] == "peakKB" {
			stored, _ = strconv.ParseInt(f[2], 10, 64)
			peakKB, _ = strconv.ParseInt(f[4], 10, 64)
		}
	}
	if peakKB < 0 {
		t.Fatalf("child reported no peak:\n%s", out)
	}
	t.Logf("storing a %d-page result (search %v) peaked at %.1f MB resident", pages, withSearch, float64(peakKB)/1024)
	if stored != int64(pages) {
		t.Fatalf("child stored %d pages, want %d:\n%s", stored, pages, out)
	}
	if peakKB > limitMB<<10 {
		t.Fatalf("storing a %d-page result (search %v) peaked at %.1f MB resident, want <= %d MB", pages, withSearch, float64(peakKB)/1024, limitMB)
	}
}

// TestHelperStoreResult is TestStoreBoundedMemory's child: it uploads a
// result of HIVECRAWL_TEST_STORE_PAGES pages to a storage module, with a
// search index when HIVECRAWL_TEST_STORE_SEARCH is true, and prints the
// pages stored and its peak resident memory.
func TestHelperStoreResult(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("HIVECRAWL_TEST_STORE_PAGES"))
	if err != nil {
		t.Skip("run by TestStoreBoundedMemory")
	}
	withSearch := os.Getenv("HIVECRAWL_TEST_STORE_SEARCH") == "true"
	var idx *search.Index
	if withSearch {
		if idx, _, err = search.Open(filepath.Join(t.TempDir(), "search")); err != nil {
			t.Fatal(err)
		}
		defer idx.Close()
	}
	r := newRigWith(t, func(o *Options) { o.Search = idx })
	tk, env := r.issue(t, 1)
	d := bigDelivery(t, tk.ID, env, n)
	up, _ := r.client(t)
	up.Timeout = 20 * time.Minute
	raw, err := up.Upload(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	if withSearch {
		if got, err := idx.Count(); err != nil || got != uint64(n) {
			t.Fatalf("search index holds %d pages (%v), want %d", got, err, n)
		}
	}
	fmt.Printf("result stored %d peakKB %d\n", rc.PagesNew, peakRSS(t))
}

// bigDelivery spools a result of n pages of about 40 KB of text each,
// compressed as crawlers send it, in words drawn from a vocabulary of
// 20,000 (as a site's documentation has). The pages are made one at a
// time, so that the child's peak is the store's.
func bigDelivery(t *testing.T, id string, env []byte, n int) taskmgr.Delivery {
	t.Helper()
	rng := rand.New(rand.NewPCG(48, 2))
	vocab := make([]string, 20000)
	for i := range vocab {
		var b strings.Builder
		for range 3 + rng.IntN(8) {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 2, uint64(len(vocab)-1))
	path := filepath.Join(t.TempDir(), "spool")
	sp, err := crawler.OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for i := range n {
		text.Reset()
		for text.Len() < 40<<10 {
			text.WriteString(vocab[zipf.Uint64()])
			text.WriteByte(' ')
			if rng.IntN(12) == 0 {
				text.WriteString(".\n")
			}
		}
		data, comp := textcodec.Encode([]byte(text.String()))
		p := &task.Page{URL: fmt.Sprintf("http://site.example/doc/%d.html", i), Status: 200, FetchedAt: t0,
			Digest: task.DigestString(text.String()), Text: data, Compression: comp, TextBytes: text.Len(),
			Title: fmt.Sprintf("Page %d", i), OutLinks: 20, Depth: 1}
		if err := sp.Page(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	return taskmgr.Delivery{TaskID: id, Raw: env, Spool: path,
		Result: &task.Result{TaskID: id, Stats: task.Stats{PagesFetched: n, Dirs: map[string]int{"/doc/": n}}}}
}

// peakRSS returns this process's peak resident memory in KB (VmHWM).
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
