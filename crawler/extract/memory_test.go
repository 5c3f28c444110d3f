package extract

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/hivecrawl/hivecrawl/testkit/testbin"
)

// hostileBodySize is the crawler's body cap: the largest page Parse sees.
const hostileBodySize = 10 << 20

// hostilePages are bodies at the body cap whose shape made the tree
// builder use 40–90 bytes of memory per byte of HTML: formatting elements
// reopened at every paragraph, unclosed links, one paragraph per word.
var hostilePages = map[string]string{
	"a-span-font-p-em": `<a href><span><font><p><em>`,
	"p-b-x":            `<p><b>x</p>`,
	"p-word":           `<p>word `,
	"a-href":           `<a href>`,
	"table-cells":      `<table><tr><td><b>`,
	"formatting-stack": `<nobr><i><u><s>`,
	"div":              `<div>`,
}

// hostileBody repeats unit up to the body cap, or for a "gen-N" name
// builds a page from seed N out of pieces that stress the tree builder.
func hostileBody(name string) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>t</title></head><body>")
	if seed, ok := strings.CutPrefix(name, "gen-"); ok {
		n, _ := strconv.Atoi(seed)
		r := rand.New(rand.NewPCG(uint64(n), 7))
		pieces := []func(){
			func() { fmt.Fprintf(&b, `<a href="/p/%d">`, r.IntN(1e6)) },
			func() { fmt.Fprintf(&b, `<b class="c%d">`, r.IntN(50)) },
			func() { b.WriteString(`<i><u><s><font color=red>`) },
			func() { b.WriteString(`</p><p>`) },
			func() { b.WriteString(`<table><tr><td>`) },
			func() { b.WriteString(`<ul><li><ol><li>`) },
			func() { b.WriteString(`</b></i></a>`) },
			func() { b.WriteString(`word &amp; word `) },
			func() { fmt.Fprintf(&b, `<img alt="%s">`, strings.Repeat("x", r.IntN(40))) },
			func() { b.WriteString(`<select><option>`) },
			func() { b.WriteString(`<svg><g><path d="M0 0"/></g>`) },
		}
		for b.Len() < hostileBodySize {
			pieces[r.IntN(len(pieces))]()
		}
	} else if unit, ok := strings.CutSuffix(name, "@tree-limit"); ok {
		// Just small enough to be parsed into a tree: the most a tree costs.
		unit = hostilePages[unit]
		tokens := 0
		for z := html.NewTokenizer(strings.NewReader(unit)); z.Next() != html.ErrorToken; {
			if tt := z.Token().Type; tt == html.StartTagToken || tt == html.TextToken {
				tokens++
			}
		}
		for range (MaxTreeTokens - 10) / tokens {
			b.WriteString(unit)
		}
		return b.Bytes()
	} else {
		unit := hostilePages[name]
		for b.Len() < hostileBodySize {
			b.WriteString(unit)
		}
	}
	return b.Bytes()[:hostileBodySize]
}

// TestHelperParseHostile parses one hostile page in a process of its own
// and prints how much its peak resident memory grew; it is run by
// TestHostilePagesBoundedMemory.
func TestHelperParseHostile(t *testing.T) {
	name := os.Getenv("HIVECRAWL_TEST_HOSTILE")
	if name == "" {
		t.Skip("run by TestHostilePagesBoundedMemory")
	}
	body := hostileBody(name)
	u, _ := url.Parse("http://example.com/")
	runtime.GC()
	debug.FreeOSMemory()
	before := procStatus(t, "VmRSS")
	resetPeak(t)
	if _, err := Parse(body, "text/html", u, Options{Text: true, MaxLinks: 10000}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("peak-growth-kB %d\n", procStatus(t, "VmHWM")-before)
}

// procStatus reads a kB figure from /proc/self/status.
func procStatus(t *testing.T, key string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s not in /proc/self/status", key)
	return 0
}

// resetPeak sets VmHWM back to the current resident size (Linux 4.0+).
func resetPeak(t *testing.T) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skip("cannot reset the peak resident size:", err)
	}
}

// Every hostile page at the body cap, generated ones, and the costliest
// shapes just small enough for a tree parse with peak resident memory
// growing by at most 100 MB (10× the 10 MiB body cap), measured from the
// kernel's high-water mark in a process of its own.
func TestHostilePagesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 10 MiB pages in child processes")
	}
	names := []string{"gen-1", "gen-2", "gen-3", "a-span-font-p-em@tree-limit", "p-b-x@tree-limit"}
	for name := range hostilePages {
		names = append(names, name)
	}
	const limitKB = 10 * hostileBodySize / 1024
	bin := testbin.WithoutRace(t, raceEnabled)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, "-test.run=^TestHelperParseHostile$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "HIVECRAWL_TEST_HOSTILE="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			i := bytes.Index(out, []byte("peak-growth-kB "))
			if i < 0 {
				t.Fatalf("no figure from the child:\n%s", out)
			}
			var kb int64
			fmt.Sscan(string(out[i+len("peak-growth-kB "):]), &kb)
			t.Logf("%s: peak resident growth %d MB", name, kb/1024)
			if kb > limitKB {
				t.Errorf("%s: peak resident memory grew by %d MB, over 10× the %d MiB body cap", name, kb/1024, hostileBodySize>>20)
			}
		})
	}
}
