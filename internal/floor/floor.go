// Package floor is the politeness no network operator can lower (design.md
// §8): a volunteer's client refuses a network whose politeness wait is
// below MinDelay, whose User-Agent names another crawler, or whose
// bootstrap addresses lie in private, loopback or link-local ranges, and
// the manager refuses to start with such a policy, since its volunteers
// would refuse it anyway.
//
// Every refusal wraps ErrRefused and says, in words a volunteer can act
// on, what the network asked for and why Hivecrawl will not do it.
//
// Caveat: bootstrap addresses that name a host (/dns4/, /dns6/, /dnsaddr/)
// are checked by name only (localhost and .local); what they resolve to is
// only known when libp2p dials them.
package floor

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// MinDelay is the shortest politeness wait between two requests to one
// web host that a network may ask its volunteers to keep.
//
// One second is the wait of the manager's default policy and the
// crawler's own default, so no network that kept the defaults is refused;
// it is the most a floor can be without overruling operators who chose
// what the project itself recommends. It bounds one volunteer to 3,600
// requests an hour per host, the load of a modest crowd of readers, and
// the manager lets one crawler at a time work on a host, so it bounds
// the swarm too. Below it, the floor would no longer protect: at the 1 ms
// an operator could ask for, one volunteer sent 63 requests to a host
// 1.9 ms apart, a flood for a small site on shared hosting. Nutch (5 s)
// and Heritrix (3 s) default higher, and robots.txt Crawl-delay and the
// volunteer's own setting can only raise it.
const MinDelay = time.Second

// ErrRefused is wrapped by every refusal of this package.
var ErrRefused = errors.New("this network's policy is refused")

// Crawlers are the product tokens of other crawlers, lower case. A
// User-Agent naming one would pass the volunteers' requests off as that
// crawler's: sites trust, block and rate them by these names.
var Crawlers = []string{
	"googlebot", "google-extended", "adsbot-google", "mediapartners-google", "storebot-google",
	"bingbot", "bingpreview", "adidxbot", "msnbot", "slurp", "duckduckbot", "baiduspider",
	"yandexbot", "applebot", "facebookexternalhit", "facebot", "meta-externalagent",
	"gptbot", "chatgpt-user", "oai-searchbot", "claudebot", "claude-web", "anthropic-ai",
	"ccbot", "ahrefsbot", "semrushbot", "mj12bot", "petalbot", "bytespider", "amazonbot",
	"dotbot", "rogerbot", "seznambot", "sogou", "exabot", "ia_archiver", "archive.org_bot",
	"twitterbot", "linkedinbot", "pinterestbot", "perplexitybot", "diffbot", "dataforseobot",
	"blexbot", "qwantify", "naverbot", "coccocbot", "mojeekbot",
}

// Delay refuses a politeness wait below min (MinDelay unless a test set
// another).
func Delay(d, min time.Duration) error {
	if d >= min {
		return nil
	}
	return fmt.Errorf("%w: it asks volunteers to wait only %v between requests to one web site, and Hivecrawl never waits less than %v, so that no site is flooded",
		ErrRefused, d, min)
}

// UserAgent refuses a User-Agent that names another crawler: any word of
// it (split at what is not a letter, digit, '-', '_' or '.') that is one
// of Crawlers, compared without regard to case, whether it is the product
// token or stands in the comment ("Mozilla/5.0 (compatible; Googlebot/2.1)").
// Words are matched whole, so a network whose name merely contains a
// crawler's ("Slurpee") may name itself; a network named after another
// crawler may not, or any operator could name theirs "Googlebot".
func UserAgent(ua string) error {
	for _, w := range strings.FieldsFunc(ua, notTokenChar) {
		if name, ok := crawlerName(strings.Trim(w, ".-_")); ok {
			return fmt.Errorf("%w: its User-Agent %q names the crawler %q, and Hivecrawl never passes itself off as another crawler", ErrRefused, ua, name)
		}
	}
	return nil
}

// crawlerName returns the Crawlers entry w is, also when w carries a
// suffix after '-' ("Googlebot-Image", "YandexBot-Mobile").
func crawlerName(w string) (string, bool) {
	lw := strings.ToLower(w)
	for _, c := range Crawlers {
		if lw == c || strings.HasPrefix(lw, c+"-") {
			return c, true
		}
	}
	return "", false
}

func notTokenChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// Bootstrap refuses bootstrap addresses (multiaddrs) in private,
// loopback, link-local or other special-purpose ranges: a client would
// dial them on the volunteer's own network (its router, a printer, a
// service on the machine) at the operator's word. allow lets the
// test-only ranges through, as the crawler's dial guard does.
func Bootstrap(addrs []string, allow netguard.Allow) error {
	for _, a := range addrs {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			return fmt.Errorf("%w: bootstrap address %q is not a multiaddr: %v", ErrRefused, a, err)
		}
		if why := addrProblem(m, allow); why != "" {
			return fmt.Errorf("%w: its bootstrap address %s %s, and Hivecrawl connects only to public internet addresses so that no network can make it reach into yours",
				ErrRefused, a, why)
		}
	}
	return nil
}

// addrProblem says why m may not be dialled, "" when it may.
func addrProblem(m ma.Multiaddr, allow netguard.Allow) string {
	for _, c := range m {
		switch c.Protocol().Code {
		case ma.P_IP4, ma.P_IP6:
			ip, err := netip.ParseAddr(c.Value())
			if err != nil {
				return "has no valid IP address"
			}
			if netguard.Check(ip, allow) != nil {
				return "is " + rangeName(ip)
			}
		case ma.P_DNS, ma.P_DNS4, ma.P_DNS6, ma.P_DNSADDR:
			if netguard.MachineName(c.Value(), allow) {
				return "names this machine (localhost)"
			}
			name := strings.ToLower(strings.TrimSuffix(c.Value(), "."))
			if strings.HasSuffix(name, ".local") || strings.HasSuffix(name, ".internal") || strings.HasSuffix(name, ".lan") || strings.HasSuffix(name, ".home.arpa") {
				return "names a machine on a local network"
			}
		}
	}
	return ""
}

// rangeName names the kind of address ip is, for a refusal.
func rangeName(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "on this machine (loopback)"
	case ip.IsPrivate():
		return "in a private network range"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified (0.0.0.0 or ::)"
	case ip.IsMulticast():
		return "multicast"
	}
	return "in a range reserved for special use"
}
