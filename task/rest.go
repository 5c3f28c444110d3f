package task

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits on a Rest, so that a continuation task stays well under
// MaxEncodedSize: paper 000 caps a task's Pageseen at about 400 kB.
const (
	// MaxRestTodo bounds the URLs a crawl cut short passes on.
	MaxRestTodo = MaxSeeds
	// MaxRestSeen bounds the URLs it had seen (8 bytes each).
	MaxRestSeen = 32 << 10
	// MaxRestBytes bounds a rest's JSON encoding.
	MaxRestBytes = 640 << 10
)

// StoppedHandedOff is Result.Stopped of a crawl its volunteer stopped
// gracefully while pages were left: the result carries the Rest, and the
// manager issues the rest of the crawl as a continuation task.
const StoppedHandedOff = "handed off"

// Rest is where a crawl stood when its volunteer stopped: the URLs still
// to fetch (URLtodo), the URLs already seen (URLseen, as the crawler
// hashes them) and the requests made. A continuation task carries it as
// Resume, so that the volunteer who takes the host over goes on from
// there instead of from the seeds.
type Rest struct {
	Requests int       `json:"requests"`
	Todo     []Pending `json:"todo"`
	// Seen holds the 8-byte, big-endian hashes of the URLs seen.
	Seen []byte `json:"seen"`
}

// Pending is one URL left to fetch, at its link depth.
type Pending struct {
	URL   string `json:"url"`
	Depth int    `json:"depth,omitempty"`
	// Parent is the digest of the URL of the page the link was found on.
	Parent Digest `json:"parent,omitempty"`
}

// Validate checks r's sizes and, when host is not empty, that every URL
// to fetch is on host: a rest comes from a volunteer, not the manager.
func (r *Rest) Validate(host string) error {
	switch {
	case r.Requests < 0:
		return fmt.Errorf("%w: rest has negative requests", ErrInvalid)
	case len(r.Todo) > MaxRestTodo:
		return fmt.Errorf("%w: rest has %d URLs to fetch, at most %d", ErrInvalid, len(r.Todo), MaxRestTodo)
	case len(r.Seen)%8 != 0 || len(r.Seen)/8 > MaxRestSeen:
		return fmt.Errorf("%w: rest's seen set is not at most %d hashes", ErrInvalid, MaxRestSeen)
	}
	for _, p := range r.Todo {
		if p.URL == "" || len(p.URL) > MaxURLLength || p.Depth < 0 || p.Depth > MaxDepthLimit {
			return fmt.Errorf("%w: rest URL or depth out of range", ErrInvalid)
		}
		if host == "" {
			continue
		}
		u, err := url.Parse(p.URL)
		if err != nil || !strings.EqualFold(u.Host, host) {
			return fmt.Errorf("%w: rest URL %q is not on %s", ErrInvalid, p.URL, host)
		}
	}
	return nil
}

// ContinuationID names the continuation of task id: "a/1/0" goes on as
// "a/1/0+2", which goes on as "a/1/0+3".
func ContinuationID(id string) string {
	base, part := id, 1
	if i := strings.LastIndexByte(id, '+'); i > strings.LastIndexByte(id, '/') {
		if n, err := strconv.Atoi(id[i+1:]); err == nil && n > 0 {
			base, part = id[:i], n
		}
	}
	return base + "+" + strconv.Itoa(part+1)
}
