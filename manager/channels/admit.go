package channels

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// notPublicAdvice ends the refusal of a host no crawler would dial.
const notPublicAdvice = "Hivecrawl crawls only public web sites (test fixtures on loopback need --allow-loopback)"

// CheckSeed is the one check a seed URL a person adds passes, whichever
// way it comes (`hivecrawl channels add`, `hivecrawl seed add`, the
// dashboard, the manager's local API, a seeds file): ParseSeed's, then
// the host must be one the crawler may dial. localhost names and literal
// addresses that are not public (loopback, private, link-local, ...:
// netguard's rule) are refused, unless allow lets them through (the
// test-only switches). It returns ParseSeed's seed and channel ID; its
// errors wrap ErrBadSeed and name the URL.
//
// A host name that resolves to such an address is known only when it is
// crawled: its channel then says why it fails.
func CheckSeed(raw string, allow netguard.Allow) (seed, id string, err error) {
	seed, id, err = ParseSeed(raw)
	if err != nil {
		return "", "", err
	}
	u, err := url.Parse(seed)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: %v", ErrBadSeed, raw, err)
	}
	host := u.Hostname()
	if netguard.MachineName(host, allow) {
		return "", "", fmt.Errorf("%w: %s: %s names this machine; %s", ErrBadSeed, raw, host, notPublicAdvice)
	}
	if ip, perr := netip.ParseAddr(host); perr == nil {
		if netguard.Check(ip, allow) != nil {
			return "", "", fmt.Errorf("%w: %s: %s is not a public address; %s", ErrBadSeed, raw, host, notPublicAdvice)
		}
	}
	return seed, id, nil
}

// CheckSeeds applies CheckSeed to every URL and returns the seeds, or an
// error naming each URL refused and why: a batch is added all or none.
func CheckSeeds(raw []string, allow netguard.Allow) ([]string, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: no URL given: name a site such as https://example.org/", ErrBadSeed)
	}
	seeds := make([]string, 0, len(raw))
	var bad []error
	for _, r := range raw {
		s, _, err := CheckSeed(r, allow)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		seeds = append(seeds, s)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("nothing added: %w", errors.Join(bad...))
	}
	return seeds, nil
}
