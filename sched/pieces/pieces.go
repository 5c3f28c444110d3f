// Package pieces splits a large web host into pieces (paper 002 §5.2): the
// host's first-level "key directories", those holding most of its pages in
// the last crawl, plus one subset for the rest, are assigned evenly to N
// pieces. Each piece is crawled as its own task, seeded with the host's main
// page and limited by its directories as URL filters.
//
// The package is pure: it works on the per-directory page counts of the
// last crawl (task.Stats.Dirs) and returns filters; no I/O.
//
// Caveat: the filters are regular expressions that can only list
// directories (RE2 has no negative look-ahead), so the "rest" subset names
// the minor directories seen in the last crawl plus the host's root-level
// files; a directory that appeared since is crawled by no piece until the
// next split.
package pieces

import (
	"cmp"
	"regexp"
	"slices"
)

// DefaultKeyShare is the share of pages the key directories must hold: the
// paper found 19 % of first-level directories holding over 90 % of pages.
const DefaultKeyShare = 0.9

// Root is the per-directory key of the host's root-level files (as
// crawler/urls.Dir returns it).
const Root = "/"

// Piece is one part of a host.
type Piece struct {
	// Dirs are the first-level directories ("/news/") the piece covers;
	// Root stands for the root-level files.
	Dirs []string `json:"dirs"`
	// Pages is the pages these directories held in the last crawl.
	Pages int `json:"pages"`
}

// Split divides a host whose last crawl found dirs (pages per first-level
// directory) into at most n pieces. The key directories are the fewest
// largest ones holding keyShare of the pages (0 = DefaultKeyShare), but at
// least n−1 of them when there are that many, so that N < K+2 holds; the
// other directories form the rest subset. Subsets are assigned largest
// first to the piece with the fewest pages, which keeps the pieces even.
// Pieces come out ordered by their largest directory's size, directories
// within a piece sorted by name. It returns nil when n < 2 or the host has
// fewer than two subsets: such a host is crawled whole.
func Split(dirs map[string]int, n int, keyShare float64) []Piece {
	if keyShare <= 0 || keyShare > 1 {
		keyShare = DefaultKeyShare
	}
	type dir struct {
		name  string
		pages int
	}
	var all []dir
	total, root := 0, 0
	for name, pages := range dirs {
		switch {
		case pages <= 0:
		case name == Root:
			// Root-level files always go with the rest: a filter can only
			// name them together.
			root = pages
		default:
			all = append(all, dir{name, pages})
		}
		total += max(pages, 0)
	}
	if n < 2 || total == 0 {
		return nil
	}
	// Largest first; ties by name so the result is deterministic.
	slices.SortFunc(all, func(a, b dir) int {
		if c := cmp.Compare(b.pages, a.pages); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	k, covered := 0, 0
	for k < len(all) && (float64(covered) < keyShare*float64(total) || k < n-1) {
		covered += all[k].pages
		k++
	}
	subsets := make([]Piece, 0, k+1)
	for _, d := range all[:k] {
		subsets = append(subsets, Piece{Dirs: []string{d.name}, Pages: d.pages})
	}
	if k < len(all) || root > 0 {
		rest := Piece{Pages: root}
		if root > 0 {
			rest.Dirs = append(rest.Dirs, Root)
		}
		for _, d := range all[k:] {
			rest.Dirs = append(rest.Dirs, d.name)
			rest.Pages += d.pages
		}
		subsets = append(subsets, rest)
	}
	if len(subsets) < 2 {
		return nil
	}
	n = min(n, len(subsets))
	slices.SortStableFunc(subsets, func(a, b Piece) int { return cmp.Compare(b.Pages, a.Pages) })
	out := make([]Piece, n)
	for _, s := range subsets {
		i := 0
		for j := range out {
			if out[j].Pages < out[i].Pages {
				i = j
			}
		}
		out[i].Dirs = append(out[i].Dirs, s.Dirs...)
		out[i].Pages += s.Pages
	}
	for i := range out {
		slices.Sort(out[i].Dirs)
	}
	return out
}

// Filters returns the URL filters of a piece of the given host ("host" or
// "host:port"): one regular expression per directory, and one for the
// root-level files when the piece holds Root.
func Filters(host string, p Piece) []string {
	prefix := `^https?://` + regexp.QuoteMeta(host)
	out := make([]string, 0, len(p.Dirs))
	for _, d := range p.Dirs {
		if d == Root {
			out = append(out, prefix+`/[^/]*$`)
			continue
		}
		out = append(out, prefix+regexp.QuoteMeta(d))
	}
	return out
}
