// Package evolve measures recrawl strategies on an evolving synthetic web
// site: the real crawler fetches it over loopback HTTP, the real channel
// database plans each round, and the site's pages change by Poisson
// processes whose rates the benchmark knows, so freshness is measured
// exactly rather than estimated.
//
// Time is virtual: the site answers as of the clock the runner sets before
// each round, so a year of rounds takes seconds. Pages never appear or
// disappear; the link tree is fixed (home, sections, articles).
package evolve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SiteConfig shapes a site.
type SiteConfig struct {
	// Sections and PerSection make the tree: the home page links to every
	// section page, each section page to its articles.
	Sections, PerSection int
	// Never is the share of pages that never change.
	Never float64
	// MinRate and MaxRate bound the other pages' change rates (changes per
	// hour), spread log-uniformly between them.
	MinRate, MaxRate float64
	// Horizon is how far ahead changes are drawn.
	Horizon time.Duration
	// PageBytes is the size of an article's filler text.
	PageBytes int
	Seed      uint64
}

// Site is the synthetic site: an http.Handler answering as of its clock.
type Site struct {
	start time.Time
	pages []*page
	byURL map[string]*page // by path

	mu  sync.Mutex
	now time.Time // guarded by mu
}

type page struct {
	path     string
	links    []string
	rate     float64     // changes per hour
	changes  []time.Time // sorted
	filler   string
	children int
}

// NewSite draws a site's pages and their change times from cfg.
func NewSite(cfg SiteConfig, start time.Time) *Site {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed))
	s := &Site{start: start, now: start, byURL: make(map[string]*page)}
	add := func(path string, links []string) {
		p := &page{path: path, links: links}
		if rng.Float64() >= cfg.Never {
			lo, hi := math.Log(cfg.MinRate), math.Log(cfg.MaxRate)
			p.rate = math.Exp(lo + rng.Float64()*(hi-lo))
			for t := 0.0; ; {
				t += rng.ExpFloat64() / p.rate
				at := start.Add(time.Duration(t * float64(time.Hour)))
				if at.After(start.Add(cfg.Horizon)) {
					break
				}
				p.changes = append(p.changes, at)
			}
		}
		p.filler = filler(rng, cfg.PageBytes)
		s.pages = append(s.pages, p)
		s.byURL[path] = p
	}
	var sections []string
	for i := range cfg.Sections {
		sections = append(sections, fmt.Sprintf("/s%d/", i))
	}
	add("/", sections)
	for i, sec := range sections {
		var arts []string
		for j := range cfg.PerSection {
			arts = append(arts, fmt.Sprintf("/s%d/a%d.html", i, j))
		}
		add(sec, arts)
		for _, a := range arts {
			add(a, []string{"/", sec})
		}
	}
	return s
}

// filler returns n bytes of words, so pages weigh what articles weigh.
func filler(rng *rand.Rand, n int) string {
	words := []string{"volunteer", "crawler", "network", "freshness", "page", "host", "change", "rate", "round", "site"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// SetNow moves the site's clock.
func (s *Site) SetNow(t time.Time) {
	s.mu.Lock()
	s.now = t
	s.mu.Unlock()
}

func (s *Site) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Paths returns every page's path.
func (s *Site) Paths() []string {
	out := make([]string, len(s.pages))
	for i, p := range s.pages {
		out[i] = p.path
	}
	return out
}

// Version returns how many times the page at path had changed by t.
func (s *Site) Version(path string, t time.Time) int {
	p := s.byURL[path]
	if p == nil {
		return -1
	}
	n, _ := slices.BinarySearchFunc(p.changes, t, func(a, b time.Time) int { return a.Compare(b) })
	for n < len(p.changes) && !p.changes[n].After(t) {
		n++
	}
	return n
}

// Rate returns the page's change rate per hour.
func (s *Site) Rate(path string) float64 { return s.byURL[path].rate }

// ServeHTTP serves robots.txt and the pages as of the clock, with an ETag
// and Last-Modified, answering conditional GETs with 304.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("User-agent: *\nAllow: /\n"))
		return
	}
	p := s.byURL[r.URL.Path]
	if p == nil {
		http.NotFound(w, r)
		return
	}
	now := s.clock()
	v := s.Version(p.path, now)
	modified := s.start
	if v > 0 {
		modified = p.changes[v-1]
	}
	etag := `"` + strconv.Itoa(v) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>Page %s version %d</title></head><body><nav>", p.path, v)
	for _, l := range p.links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	fmt.Fprintf(&b, "</nav><article><h1>%s, version %d</h1><p>This is version %d of the page. %s</p></article></body></html>",
		p.path, v, v, p.filler)
	_, _ = w.Write([]byte(b.String()))
}
