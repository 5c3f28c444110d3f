// Command textsize measures how much smaller than the HTML the text a
// crawler uploads is (issue 20): it crawls, with the real crawler on
// loopback, a synthetic web (package fixture, as the crawl benchmark) and
// a real documentation site (Debian's python3-doc, served from disk), and
// prints compressed text / HTML bytes with the text dictionary
// (crawler/textcodec), with plain zstd, and uncompressed. `make bench`
// runs it (section textsize).
//
// The dictionary was trained on the text of every other python3-doc page
// (in path order, the even ones) and of fixture sites named "train-…";
// the python3-doc figure is also given for the other pages alone, which
// the dictionary never saw, and the fixture crawled is named "bench-…".
// With -samples DIR it writes those training texts instead, one file a
// page, for `zstd --train` (see crawler/textcodec).
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/extract"
	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/task"
)

func main() {
	var (
		samples = flag.String("samples", "", "write the dictionary's training texts to `DIR` and exit")
		docs    = flag.String("python3-doc", "/usr/share/doc/python3-doc/html", "python3-doc's HTML tree")
		hosts   = flag.Int("hosts", 20, "fixture hosts")
		pages   = flag.Int("pages", 50, "fixture pages per host")
	)
	flag.Parse()
	var err error
	if *samples != "" {
		err = writeSamples(*samples, *docs, *hosts, *pages)
	} else {
		err = measure(*docs, *hosts, *pages)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "textsize:", err)
		os.Exit(1)
	}
}

// docPages lists python3-doc's HTML pages, relative, in path order.
func docPages(dir string) ([]string, error) {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

func writeSamples(out, docs string, hosts, pages int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	n := 0
	write := func(body []byte) error {
		p, err := extract.Parse(body, "text/html; charset=utf-8", nil, extract.Options{Text: true})
		if err != nil || p.Text == "" {
			return nil
		}
		n++
		return os.WriteFile(filepath.Join(out, fmt.Sprintf("%05d.txt", n)), []byte(p.Text), 0o644)
	}
	list, err := docPages(docs)
	if err != nil {
		return fmt.Errorf("list python3-doc: %w", err)
	}
	root, _ := filepath.EvalSymlinks(docs)
	for i, rel := range list {
		if i%2 != 0 {
			continue // held out
		}
		body, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		if err := write(body); err != nil {
			return err
		}
	}
	for _, s := range fixture.Sites(hosts, "train", fixture.Site{Pages: pages, PageBytes: 10 << 10}) {
		for i := range s.Pages {
			if err := write(s.Render(i, 0, nil)); err != nil {
				return err
			}
		}
	}
	fmt.Printf("wrote %d texts to %s\n", n, out)
	return nil
}

// tally adds up one crawl's pages.
type tally struct {
	mu                         sync.Mutex // guards the counts
	html, dict, plain, text    int64
	heldHTML, heldDict, pagesN int64
	// htmlOf is the size of the HTML page at u; false for pages not
	// counted. heldOut, when set, tells the pages the dictionary never saw.
	htmlOf  func(u string) (int64, bool)
	heldOut func(u string) bool
}

var plain = func() *zstd.Encoder {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	return enc
}()

func (t *tally) Page(p *task.Page) error {
	if p.Status != 200 || len(p.Text) == 0 {
		return nil
	}
	size, ok := t.htmlOf(p.URL)
	if !ok {
		return nil
	}
	raw, err := textcodec.Decode(p.Text, p.Compression)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pagesN++
	t.html += size
	t.dict += int64(len(p.Text))
	t.plain += int64(len(plain.EncodeAll(raw, nil)))
	t.text += int64(len(raw))
	if t.heldOut != nil {
		if t.heldOut(p.URL) {
			t.heldHTML += size
			t.heldDict += int64(len(p.Text))
		}
	}
	return nil
}

func (t *tally) report(name string) {
	r := func(a, b int64) string { return fmt.Sprintf("1/%.1f", float64(b)/float64(max(a, 1))) }
	fmt.Printf("  %-34s %5d pages %9d B HTML  text %s  zstd %s  zstd+%s %s", name, t.pagesN, t.html,
		r(t.text, t.html), r(t.plain, t.html), strings.TrimPrefix(textcodec.Dict1, "zstd+"), r(t.dict, t.html))
	if t.heldOut != nil {
		fmt.Printf("  (held-out pages: %s)", r(t.heldDict, t.heldHTML))
	}
	fmt.Println()
}

func crawl(ctx context.Context, seed string, t *tally) error {
	u, err := url.Parse(seed)
	if err != nil {
		return err
	}
	c := crawler.New(crawler.Config{NoDelay: true, AllowLoopback: true, MaxPages: 100000})
	_, err = c.Run(ctx, &task.Task{ID: "textsize", Channel: u.Host, Seeds: []string{seed}, MaxDepth: 50}, t)
	return err
}

func measure(docs string, hosts, pages int) error {
	ctx := context.Background()
	fmt.Println("== textsize: compressed text / HTML bytes, crawled on loopback")
	web, err := fixture.New(fixture.Sites(hosts, "bench", fixture.Site{Pages: pages, PageBytes: 10 << 10}), fixture.Options{})
	if err != nil {
		return err
	}
	defer web.Close()
	fx := &tally{}
	var total int64
	for _, s := range web.Sites() {
		for i := range s.Pages {
			total += int64(len(web.Page(s.Name, i)))
		}
	}
	// Every fixture page is HTML of about the same size: the ratio is
	// taken over the whole web, pages counted by the crawl.
	fx.htmlOf = func(string) (int64, bool) { return 0, true }
	for _, s := range web.Sites() {
		if err := crawl(ctx, web.URL(s.Name), fx); err != nil {
			return fmt.Errorf("crawl fixture: %w", err)
		}
	}
	fx.html = total
	fx.report(fmt.Sprintf("fixture (%d hosts × %d pages)", hosts, pages))

	list, err := docPages(docs)
	if err != nil {
		fmt.Printf("  python3-doc: skipped: %v (apt-get install python3-doc)\n", err)
		return nil
	}
	root, _ := filepath.EvalSymlinks(docs)
	index := make(map[string]int, len(list))
	for i, rel := range list {
		index[rel] = i
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	rel := func(u string) (string, bool) {
		pu, err := url.Parse(u)
		if err != nil {
			return "", false
		}
		p := strings.TrimPrefix(path.Clean(pu.Path), "/")
		if p == "" || p == "." {
			p = "index.html"
		}
		_, ok := index[p]
		return p, ok
	}
	py := &tally{}
	py.htmlOf = func(u string) (int64, bool) {
		p, ok := rel(u)
		if !ok {
			return 0, false // not an HTML page (sources, images)
		}
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			return 0, false
		}
		return fi.Size(), true
	}
	py.heldOut = func(u string) bool {
		p, ok := rel(u)
		return ok && index[p]%2 == 1
	}
	if err := crawl(ctx, srv.URL+"/index.html", py); err != nil {
		return fmt.Errorf("crawl python3-doc: %w", err)
	}
	py.report("python3-doc")
	return nil
}
