package channels

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// maxSeedLine bounds one line of a seed file.
const maxSeedLine = 8 << 10

// ParseSeed checks that s is an absolute http or https URL with a host and
// returns its normalised form (lower-case scheme, the host as the crawler
// spells it, empty path made "/", fragment dropped) and its channel ID,
// the host with its port ("example.com", "127.0.0.1:8080"). The host is
// the crawler's canonical one (urls.Canonical: punycode, no trailing dot,
// no default port), so that every spelling of a host is one channel and
// one lease: "bücher.example", "xn--bcher-kva.example" and
// "xn--bcher-kva.example." are one host.
func ParseSeed(s string) (seed, channel string, err error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > task.MaxURLLength {
		return "", "", fmt.Errorf("%w: length %d outside 1..%d", ErrBadSeed, len(s), task.MaxURLLength)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return "", "", fmt.Errorf("%w: space or control character at byte %d", ErrBadSeed, i)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBadSeed, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", fmt.Errorf("%w: %q: scheme must be http or https", ErrBadSeed, s)
	}
	if u.Hostname() == "" || u.User != nil || u.Opaque != "" {
		return "", "", fmt.Errorf("%w: %q: needs a host and no user info", ErrBadSeed, s)
	}
	if strings.ContainsAny(u.Host, " \t/\\") {
		return "", "", fmt.Errorf("%w: %q: bad host", ErrBadSeed, s)
	}
	h, err := urls.Canonical(u.Scheme+"://"+u.Host+"/", nil)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: bad host: %v", ErrBadSeed, s, err)
	}
	u.Host = h.Host
	if u.Path == "" {
		u.Path = "/"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), u.Host, nil
}

// ReadSeeds reads a seed file: one URL per line; blank lines and lines
// starting with # are skipped. It returns the good seeds and one error per
// bad line (with its line number), and fails only when reading fails.
func ReadSeeds(r io.Reader) (seeds []string, bad []error, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxSeedLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, _, err := ParseSeed(line)
		if err != nil {
			bad = append(bad, fmt.Errorf("line %d: %w", n, err))
			continue
		}
		seeds = append(seeds, s)
	}
	if err := sc.Err(); err != nil {
		return seeds, bad, fmt.Errorf("read seeds: %w", err)
	}
	return seeds, bad, nil
}
