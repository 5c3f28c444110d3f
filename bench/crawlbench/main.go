// Command crawlbench measures Hivecrawl's crawl engine against Colly on a
// local synthetic web (package fixture): many hosts crawled in parallel, one
// connection per host, no politeness wait, the same link following and
// depth for both. It prints pages/s for each crawler, their ratio with and
// without main-text extraction, and allocations per page.
//
// The synthetic web runs in a child process (this program with -serve), so
// the allocation counts of the measuring process are the crawlers' alone and
// the server competes for the CPU as a real one on the same machine would.
//
// Colly has no main-text extraction; "with extraction" runs it with
// go-trafilatura in its OnResponse callback, which is how a Colly user would
// add it. Both sides honour robots.txt.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/cputime"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

type options struct {
	hosts, pages, pageBytes, depth, rounds int
	only, cpuProfile                       string
}

func main() {
	var o options
	serve := flag.Bool("serve", false, "serve the synthetic web (internal: run by the benchmark itself)")
	flag.IntVar(&o.hosts, "hosts", 100, "number of hosts")
	flag.IntVar(&o.pages, "pages", 100, "pages per host")
	flag.IntVar(&o.pageBytes, "page-bytes", 10<<10, "approximate page size in bytes")
	flag.IntVar(&o.depth, "depth", 10, "maximum link depth followed from each host's index page")
	flag.IntVar(&o.rounds, "rounds", 1, "measure each crawler this many times, alternating, and keep the best")
	flag.StringVar(&o.only, "only", "", "comma-separated subset of runs: hivecrawl,hivecrawl-text,colly,colly-text")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs to `FILE`")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *serve {
		err = serveWeb(o)
	} else {
		err = bench(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crawlbench:", err)
		os.Exit(1)
	}
}

// sites returns the synthetic web's spec.
func sites(o options) []fixture.Site {
	return fixture.Sites(o.hosts, "bench", fixture.Site{Pages: o.pages, PageBytes: o.pageBytes})
}

// serveWeb runs in the child: it serves the web, prints the hosts' base
// URLs as one JSON line, then answers each "stats" line on stdin with the
// web's total counters and restarts the counters of connections open at
// once, until stdin closes.
func serveWeb(o options) error {
	web, err := fixture.New(sites(o), fixture.Options{})
	if err != nil {
		return err
	}
	defer web.Close()
	urls := make([]string, 0, o.hosts)
	for _, s := range web.Sites() {
		urls = append(urls, web.URL(s.Name))
		for i := range s.Pages {
			web.Page(s.Name, i) // render every page now, not while measuring
		}
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(urls); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if err := out.Encode(web.Total()); err != nil {
			return err
		}
		web.ResetMax()
	}
	return in.Err()
}

// server is the child process serving the web.
type server struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *json.Decoder
	urls []string
}

func startServer(ctx context.Context, o options) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-serve", fmt.Sprint("-hosts=", o.hosts),
		fmt.Sprint("-pages=", o.pages), fmt.Sprint("-page-bytes=", o.pageBytes))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the synthetic web: %w", err)
	}
	s := &server{cmd: cmd, in: in, out: json.NewDecoder(out)}
	if err := s.out.Decode(&s.urls); err != nil {
		s.close()
		return nil, fmt.Errorf("read the synthetic web's addresses: %w", err)
	}
	return s, nil
}

func (s *server) stats() (fixture.Stats, error) {
	var st fixture.Stats
	if _, err := io.WriteString(s.in, "stats\n"); err != nil {
		return st, err
	}
	err := s.out.Decode(&st)
	return st, err
}

func (s *server) close() {
	s.in.Close()
	s.cmd.Wait()
}

// result is one measured crawl.
type result struct {
	name       string
	pages      int64
	elapsed    time.Duration
	cpu        time.Duration // user+system time of this process (the crawler)
	mallocs    uint64
	allocBytes uint64
	web        fixture.Stats // requests, connections during the run
}

func (r result) pagesPerSec() float64 { return float64(r.pages) / r.elapsed.Seconds() }

// pagesPerCPUSec is pages per second of the crawler's own CPU time: less
// sensitive than pagesPerSec to other work on a shared machine.
func (r result) pagesPerCPUSec() float64 { return float64(r.pages) / r.cpu.Seconds() }

// run is one crawler configuration: it crawls every seed and returns the
// number of distinct pages fetched with status 200. (Colly can fetch a page
// twice in async mode, as its visited check is not atomic; the server's
// page count shows such repeats.)
type run struct {
	name  string
	crawl func(ctx context.Context, seeds []string) (int64, error)
}

func bench(ctx context.Context, o options) error {
	srv, err := startServer(ctx, o)
	if err != nil {
		return err
	}
	defer srv.close()

	runs := []run{
		{"hivecrawl", func(ctx context.Context, s []string) (int64, error) { return crawlHivecrawl(ctx, s, o, false) }},
		{"colly", func(ctx context.Context, s []string) (int64, error) { return crawlColly(ctx, s, o, false) }},
		{"hivecrawl-text", func(ctx context.Context, s []string) (int64, error) { return crawlHivecrawl(ctx, s, o, true) }},
		{"colly-text", func(ctx context.Context, s []string) (int64, error) { return crawlColly(ctx, s, o, true) }},
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	best := map[string]result{}
	fmt.Printf("crawlbench: %d hosts × %d pages of ~%d bytes, depth %d, GOMAXPROCS %d, %d round(s)\n",
		o.hosts, o.pages, o.pageBytes, o.depth, runtime.GOMAXPROCS(0), o.rounds)
	for round := range o.rounds {
		for _, r := range runs {
			if o.only != "" && !strings.Contains(","+o.only+",", ","+r.name+",") {
				continue
			}
			res, err := measure(ctx, srv, r)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			fmt.Printf("  round %d %-15s %6d pages in %7.2fs = %7.0f pages/s, %5.2f ms CPU/page, %6.0f allocs/page, %6.1f KiB/page;"+
				" server: %d requests, %d pages, %d disallowed, %d conns, at most %d open and %d requests at once per host\n",
				round+1, r.name, res.pages, res.elapsed.Seconds(), res.pagesPerSec(),
				res.cpu.Seconds()*1000/float64(max(res.pages, 1)),
				float64(res.mallocs)/float64(max(res.pages, 1)), float64(res.allocBytes)/1024/float64(max(res.pages, 1)),
				res.web.Requests, res.web.Pages, res.web.Disallowed, res.web.Conns, res.web.MaxOpenConns, res.web.MaxInFlight)
			if want := int64(o.hosts * o.pages); res.pages != want {
				fmt.Printf("  WARNING: %s fetched %d pages, expected %d\n", r.name, res.pages, want)
			}
			if b, ok := best[r.name]; !ok || res.pagesPerSec() > b.pagesPerSec() {
				best[r.name] = res
			}
		}
	}
	report(best)
	return nil
}

func measure(ctx context.Context, srv *server, r run) (result, error) {
	before, err := srv.stats()
	if err != nil {
		return result{}, err
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cputime.Process()
	start := time.Now()
	pages, err := r.crawl(ctx, srv.urls)
	elapsed := time.Since(start)
	cpu1 := cputime.Process()
	runtime.ReadMemStats(&m1)
	if err != nil {
		return result{}, err
	}
	after, err := srv.stats()
	if err != nil {
		return result{}, err
	}
	return result{
		name:       r.name,
		pages:      pages,
		elapsed:    elapsed,
		cpu:        cpu1 - cpu0,
		mallocs:    m1.Mallocs - m0.Mallocs,
		allocBytes: m1.TotalAlloc - m0.TotalAlloc,
		web: fixture.Stats{
			Requests:   after.Requests - before.Requests,
			Pages:      after.Pages - before.Pages,
			Disallowed: after.Disallowed - before.Disallowed,
			Conns:      after.Conns - before.Conns,
			// Reset by the first stats call, so this run's alone.
			MaxOpenConns: after.MaxOpenConns,
			MaxInFlight:  after.MaxInFlight,
		},
	}, nil
}

func report(best map[string]result) {
	fmt.Println("summary (best round):")
	for _, n := range []string{"hivecrawl", "colly", "hivecrawl-text", "colly-text"} {
		if r, ok := best[n]; ok {
			fmt.Printf("  %-15s %7.0f pages/s %7.0f pages/CPU-s %6.0f allocs/page\n",
				n, r.pagesPerSec(), r.pagesPerCPUSec(), float64(r.mallocs)/float64(max(r.pages, 1)))
		}
	}
	ratio := func(label, a, b string) {
		ra, oka := best[a]
		rb, okb := best[b]
		if oka && okb {
			fmt.Printf("  %-44s %5.2f (per CPU-second: %5.2f)\n", label,
				ra.pagesPerSec()/rb.pagesPerSec(), ra.pagesPerCPUSec()/rb.pagesPerCPUSec())
		}
	}
	ratio("ratio hivecrawl/colly, fetch+parse:", "hivecrawl", "colly")
	ratio("ratio hivecrawl/colly, with text extraction:", "hivecrawl-text", "colly-text")
	ratio("ratio hivecrawl with text / colly without:", "hivecrawl-text", "colly")
}
