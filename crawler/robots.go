package crawler

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jimsmart/grobotstxt"
)

// maxRobotsBytes is how much of a robots.txt is parsed (RFC 9309 §2.5: at
// least 500 KiB).
const maxRobotsBytes = 500 << 10

// maxRobotsSitemaps bounds the Sitemap: lines kept from one robots.txt; a
// run reads at most MaxSitemaps files anyway.
const maxRobotsSitemaps = 100

// robotsMode is what a robots.txt fetch decided for the run.
type robotsMode int

const (
	robotsRules       robotsMode = iota // 2xx: the parsed rules apply
	robotsAllowAll                      // 4xx other than 429, or no usable file
	robotsDisallowAll                   // 5xx, 429 or unreachable: nothing is crawled this run
)

// robots is the robots.txt policy of one host for one run.
type robots struct {
	mode  robotsMode
	agent string // product token the rules were selected for
	// rules is a reduced robots.txt holding only the group that applies to
	// agent, so matching a URL does not re-parse the whole file. Its paths
	// are in robotsPath's spelling, as are the URLs matched against them.
	rules string
	// crawlDelay is the Crawl-delay of the applying group, capped at
	// MaxAskedDelay; 0 when none.
	crawlDelay time.Duration
	// err is set when the host may not be contacted at all (a forbidden
	// address); every URL on it fails with this error.
	err error
	// unreachable is why the host itself could not be reached for its
	// robots.txt (DNS, a refused connection, a timeout); nil when it
	// answered, whatever the answer.
	unreachable error
	// sitemaps are the file's Sitemap: values as written, at most
	// maxRobotsSitemaps; sitemapsRead is set once the run has read them.
	sitemaps     []string
	sitemapsRead bool
	// signals are the file's Content-Signal and Content-Usage rules that
	// apply to agent (signals.go).
	signals []signalRule
	// kept is the answer as a checkpoint keeps it (Progress.Robots); nil
	// when a resumed run must ask again (no answer, a forbidden address,
	// a file larger than maxKeptRobots).
	kept *RobotsCopy
	// fetched is when the host answered (the checkpoint's date for a
	// copy it kept): the run asks again once it is RobotsTTL old.
	fetched time.Time
}

// stale reports whether rb is too old to use at now (RobotsTTL). A
// forbidden address is never asked again: it is no answer of the host.
func (rb *robots) stale(now time.Time) bool {
	return rb.err == nil && !now.Before(rb.fetched.Add(RobotsTTL))
}

// keptRobots returns what a checkpoint keeps of origin's robots.txt
// answer rb, fetched at fetched: a file or a definite "none" (4xx), never
// a failure, which a resumed run asks about again.
func keptRobots(origin string, status int, body []byte, rb *robots, fetched time.Time) *RobotsCopy {
	switch {
	case rb.err != nil, rb.unreachable != nil, rb.mode == robotsDisallowAll:
		return nil
	case status >= 200 && status <= 299:
		if len(body) > maxKeptRobots {
			return nil
		}
		return &RobotsCopy{Origin: origin, Status: status, Body: slices.Clone(body), Fetched: fetched}
	default:
		return &RobotsCopy{Origin: origin, Status: status, Fetched: fetched}
	}
}

// robotsForStatus returns the policy for a robots.txt answer (RFC 9309
// §2.3.1): 2xx parsed; 4xx other than 429 allow all; 429 and 5xx disallow
// all. Status 0 means the file was unreachable (disallow all).
func robotsForStatus(status int, body []byte, agent string) *robots {
	switch {
	case status >= 200 && status <= 299:
		r := parseRobots(body, agent)
		// Read apart from the rules: a file grobotstxt cannot parse
		// still says what its content may be used for.
		r.signals = parseRobotsSignals(body, agent)
		return r
	case status == 429, status >= 500, status == 0:
		return &robots{mode: robotsDisallowAll, agent: agent}
	default:
		return &robots{mode: robotsAllowAll, agent: agent}
	}
}

// parseRobots parses a robots.txt body for the product token agent with
// grobotstxt's tokenizer and grouping, keeping the applying group's rules
// and Crawl-delay.
func parseRobots(body []byte, agent string) (r *robots) {
	if len(body) > maxRobotsBytes {
		body = body[:maxRobotsBytes]
	}
	r = &robots{mode: robotsRules, agent: agent}
	defer func() {
		// grobotstxt panics on a few malformed inputs; a robots.txt that
		// cannot be parsed is treated as absent, the lenient RFC reading.
		if recover() != nil {
			r = &robots{mode: robotsAllowAll, agent: agent}
		}
	}()
	h := &groupCollector{groups: groups{agent: agent}}
	grobotstxt.Parse(string(body), h)
	head, rules, delay := "user-agent: *\n", h.globalRules, h.globalDelay
	if h.everSpecific {
		head, rules, delay = "user-agent: "+agent+"\n", h.specificRules, h.specificDelay
	}
	r.rules = head + rules.String()
	r.crawlDelay = delay
	r.sitemaps = h.sitemaps
	return r
}

// allowed reports whether robots.txt lets the agent fetch u.
func (r *robots) allowed(u *url.URL) (ok bool) {
	switch r.mode {
	case robotsAllowAll:
		return true
	case robotsDisallowAll:
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return grobotstxt.AgentAllowed(r.rules, r.agent, "http://h"+robotsPathOf(u))
}

// refusal returns the rule by which robots.txt refuses purpose for u,
// "" when none does.
func (r *robots) refusal(u *url.URL, purpose string) string {
	if len(r.signals) == 0 {
		return ""
	}
	return refusal(robotsStatements(r.signals, robotsPathOf(u)), purpose)
}

// statements returns the robots.txt signals that apply to u.
func (r *robots) statements(u *url.URL) []statement {
	if r == nil || len(r.signals) == 0 {
		return nil
	}
	return robotsStatements(r.signals, robotsPathOf(u))
}

// productToken returns the part of a User-Agent robots.txt groups match
// against: "Hivecrawl/1.0 (+https://x)" → "Hivecrawl"; ProductToken when
// ua starts with none.
func productToken(ua string) string {
	if n := productTokenLen(ua); n > 0 {
		return ua[:n]
	}
	return ProductToken
}

// groups follows, line by line, which robots.txt groups the lines being
// read belong to, for agent: a group is its user-agent lines and the
// lines after them; a user-agent line after a rule line starts a new one
// (RFC 9309 §2.2.1). A group naming agent hides the "*" groups
// (everSpecific says whether one did). Its reader says which lines are
// rules (rule).
type groups struct {
	agent string
	// inGroup: a user-agent line came; specific and global: the group
	// being read names agent, or "*"; separated: a rule line came since
	// its last user-agent line.
	inGroup, specific, global, separated, everSpecific bool
}

// userAgent reads a user-agent line's value.
func (g *groups) userAgent(ua string) {
	if g.separated {
		g.specific, g.global, g.separated = false, false, false
	}
	g.inGroup = true
	if len(ua) >= 1 && ua[0] == '*' && (len(ua) == 1 || ua[1] == ' ' || ua[1] == '\t') {
		g.global = true
		return
	}
	if strings.EqualFold(uaToken(ua), g.agent) {
		g.specific, g.everSpecific = true, true
	}
}

// rule marks a rule line: the next user-agent line starts a new group.
// It reports whether the group being read applies to agent.
func (g *groups) rule() bool {
	g.separated = g.inGroup
	return g.specific || g.global
}

// groupCollector is a grobotstxt.ParseHandler that mirrors
// grobotstxt.RobotsMatcher's grouping (only allow and disallow lines are
// rules that end a group's user-agent lines) and records the applying
// rules and Crawl-delay, and the Sitemap: lines.
type groupCollector struct {
	groups

	specificRules, globalRules strings.Builder
	specificDelay, globalDelay time.Duration
	sitemaps                   []string
}

func (h *groupCollector) HandleRobotsStart() {}
func (h *groupCollector) HandleRobotsEnd()   {}

// HandleSitemap keeps a Sitemap: line (any group's: the field stands
// apart from groups, RFC 9309 §2.2.4). grobotstxt matches the field name
// case-insensitively and also takes "site-map".
func (h *groupCollector) HandleSitemap(lineNum int, val string) {
	if val = strings.TrimSpace(val); val != "" && len(h.sitemaps) < maxRobotsSitemaps {
		h.sitemaps = append(h.sitemaps, val)
	}
}

func (h *groupCollector) HandleUserAgent(lineNum int, ua string) { h.userAgent(ua) }

// uaToken is grobotstxt's extraction of a user-agent line's product token
// (RFC 7231 token characters).
func uaToken(ua string) string {
	i := 0
	for ; i < len(ua); i++ {
		c := ua[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("~#$%'*+-.^_`|", c) >= 0) {
			break
		}
	}
	return ua[:i]
}

func (h *groupCollector) HandleAllow(lineNum int, val string)    { h.addRule("allow", val) }
func (h *groupCollector) HandleDisallow(lineNum int, val string) { h.addRule("disallow", val) }

func (h *groupCollector) addRule(key, val string) {
	if !h.rule() {
		return
	}
	b := &h.globalRules
	if h.specific {
		b = &h.specificRules
	}
	b.WriteString(key)
	b.WriteString(": ")
	b.WriteString(robotsPath(unmangleEscapes(val)))
	b.WriteByte('\n')
}

func (h *groupCollector) HandleUnknownAction(lineNum int, action, val string) {
	if !strings.EqualFold(strings.TrimSpace(action), "crawl-delay") {
		return
	}
	d, ok := parseCrawlDelay(val)
	if !ok {
		return
	}
	switch {
	case h.specific:
		h.specificDelay = max(h.specificDelay, d)
	case h.global:
		h.globalDelay = max(h.globalDelay, d)
	}
}

// parseCrawlDelay reads a Crawl-delay value in seconds ("10", "0.5"),
// capped at MaxAskedDelay. Negative and non-numeric values are ignored.
func parseCrawlDelay(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if f >= MaxAskedDelay.Seconds() {
		return MaxAskedDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}
