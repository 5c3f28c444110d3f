package crawler

import (
	"net/http"
	"slices"
	"strings"

	"github.com/jimsmart/grobotstxt"

	"github.com/hivecrawl/hivecrawl/task"
)

// Content signals: what a site says its content may be used for, read
// against the purpose of the crawl (task.Task.Purpose). Two vocabularies
// are read, each in robots.txt and as a response header:
//
//   - Content-Signal (contentsignals.org): "search=yes, ai-train=no";
//   - Content-Usage (draft-ietf-aipref-attach, with the categories of
//     draft-ietf-aipref-vocab): "search=n, train-ai=n", where bots=n
//     refuses all automated processing.
//
// Reading is liberal: keys in any case, values y, yes, n or no in any
// case; what is not understood is left out. A purpose is refused when the
// most specific category a statement names for it (the purpose's own,
// then "bots") says no; statements of different sources do not override
// each other, so any refusal counts.

// Bounds on what one robots.txt or header may make the crawler keep.
const (
	maxSignalRules = 64  // Content-Signal and Content-Usage rules kept per group from one robots.txt
	maxSignalPath  = 512 // bytes of a rule's path pattern; a longer rule is left out
	maxPrefs       = 32  // categories kept from one statement
	maxPrefKey     = 64  // bytes of a category name
)

// Sources of content signals (signalRule.kind, statement.source).
const (
	signalContentSignal = "Content-Signal"
	signalContentUsage  = "Content-Usage"
)

// prefs are one statement's usage preferences: category → allowed.
type prefs map[string]bool

// parsePrefs reads a list of preferences, "search=yes, ai-train=no" or
// "train-ai=n;x=1" (structured-field parameters are dropped).
func parsePrefs(s string) prefs {
	var p prefs
	for member := range strings.SplitSeq(s, ",") {
		member, _, _ = strings.Cut(member, ";")
		k, v, ok := strings.Cut(member, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" || len(k) > maxPrefKey || !prefKey(k) {
			continue
		}
		var allowed bool
		switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`)) {
		case "y", "yes":
			allowed = true
		case "n", "no":
		default:
			continue
		}
		if p == nil {
			p = make(prefs)
		}
		if _, seen := p[k]; !seen && len(p) >= maxPrefs {
			continue
		}
		if old, seen := p[k]; seen {
			allowed = allowed && old // said twice: a no stands
		}
		p[k] = allowed
	}
	return p
}

// prefKey reports whether k (lower case) can be a category name: the
// characters of a structured-field key, and "." and "_" as sites write
// them.
func prefKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '*') {
			return false
		}
	}
	return true
}

// refuses returns the category by which p refuses purpose, "" when it
// does not: the purpose's own category decides, else "bots".
func (p prefs) refuses(purpose string) string {
	for _, k := range []string{purpose, "bots"} {
		if allowed, ok := p[k]; ok {
			if allowed {
				return ""
			}
			return k
		}
	}
	return ""
}

// statement is the preferences one source gives for a page.
type statement struct {
	source string // "robots.txt Content-Signal", "Content-Usage header"
	prefs  prefs
}

// refusal returns what refuses purpose among sts, "" when nothing does:
// "robots.txt Content-Signal: search=n".
func refusal(sts []statement, purpose string) string {
	for _, st := range sts {
		if k := st.prefs.refuses(purpose); k != "" {
			return st.source + ": " + k + "=n"
		}
	}
	return ""
}

// summary returns sts' preferences in one small line, "ai-train=n,
// search=y", sorted, a no standing where sources disagree, at most
// task.MaxSignalsLen bytes.
func summary(sts []statement) string {
	all := make(prefs)
	for _, st := range sts {
		for k, v := range st.prefs {
			if old, ok := all[k]; ok {
				v = v && old
			}
			all[k] = v
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		item := k + "=n"
		if all[k] {
			item = k + "=y"
		}
		if b.Len()+len(item)+2 > task.MaxSignalsLen {
			break
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(item)
	}
	return b.String()
}

// headerSignals reads the Content-Signal and Content-Usage fields of a
// response.
func headerSignals(h http.Header) []statement {
	var out []statement
	for _, kind := range []string{signalContentSignal, signalContentUsage} {
		vs := h.Values(kind)
		if len(vs) == 0 {
			continue
		}
		if p := parsePrefs(strings.Join(vs, ",")); len(p) > 0 {
			out = append(out, statement{source: kind + " header", prefs: p})
		}
	}
	return out
}

// signalRule is a Content-Signal or Content-Usage line of a robots.txt:
// "Content-Usage: /drafts/ train-ai=n" (the path is optional; without
// one the rule covers the whole host).
type signalRule struct {
	kind    string // signalContentSignal or signalContentUsage
	pattern string // robotsPath spelling, "*" and "$" as in Allow rules
	prefs   prefs
}

// parseSignalRule reads a rule's value: an optional path, then the
// preferences.
func parseSignalRule(kind, v string) (signalRule, bool) {
	v = strings.TrimSpace(v)
	r := signalRule{kind: kind, pattern: "/"}
	if v != "" && (v[0] == '/' || v[0] == '*') {
		path, rest, _ := strings.Cut(v, " ")
		if i := strings.IndexByte(path, '\t'); i >= 0 {
			path, rest = path[:i], path[i+1:]+" "+rest
		}
		if len(path) > maxSignalPath {
			return r, false // matching it against every link would cost more than it can say
		}
		r.pattern, v = robotsPath(path), rest
	}
	r.prefs = parsePrefs(v)
	return r, len(r.prefs) > 0
}

// parseRobotsSignals returns the Content-Signal and Content-Usage rules
// of a robots.txt that apply to agent: those outside any group (before
// the first User-agent line), and those of the groups naming agent, or
// of the "*" groups when none names it (RFC 9309 §2.2.1). A group ends
// at a User-agent line that follows one of its rules: here Allow,
// Disallow, Crawl-delay and the signal lines themselves.
func parseRobotsSignals(body []byte, agent string) []signalRule {
	if len(body) > maxRobotsBytes {
		body = body[:maxRobotsBytes]
	}
	var outside, specific, global []signalRule
	g := groups{agent: agent}
	for line := range strings.SplitSeq(string(body), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			// "useragent hivecrawl", as grobotstxt also reads it.
			key, val, ok = strings.Cut(line, " ")
			if !ok {
				continue
			}
		}
		switch robotsKey(key) {
		case "useragent":
			g.userAgent(strings.TrimSpace(val))
		case "allow", "disallow", "crawldelay":
			g.rule()
		case "contentsignal", "contentusage":
			g.rule()
			kind := signalContentSignal
			if robotsKey(key) == "contentusage" {
				kind = signalContentUsage
			}
			r, ok := parseSignalRule(kind, val)
			switch {
			case !ok:
			case !g.inGroup:
				outside = appendRule(outside, r)
			default:
				if g.specific {
					specific = appendRule(specific, r)
				}
				if g.global {
					global = appendRule(global, r)
				}
			}
		}
	}
	if g.everSpecific {
		return append(outside, specific...)
	}
	return append(outside, global...)
}

func appendRule(rs []signalRule, r signalRule) []signalRule {
	if len(rs) >= maxSignalRules {
		return rs
	}
	return append(rs, r)
}

// robotsKey folds a robots.txt line's key for comparison: lower case,
// without spaces, "-" and "_" ("User-Agent", "user agent", "useragent").
func robotsKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '-', '_':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, k)
}

// robotsStatements returns the statements rules make for a URL path (in
// robotsPath's spelling): per kind, the rules with the longest matching
// pattern (RFC 9309's longest match, as for Allow and Disallow), a no
// standing among rules of the same length.
func robotsStatements(rules []signalRule, path string) []statement {
	var out []statement
	for _, kind := range []string{signalContentSignal, signalContentUsage} {
		best := -1
		var p prefs
		for _, r := range rules {
			if r.kind != kind || len(r.pattern) < best || !patternMatches(path, r.pattern) {
				continue
			}
			if len(r.pattern) > best {
				best, p = len(r.pattern), nil
			}
			if p == nil {
				p = make(prefs, len(r.prefs))
			}
			for k, v := range r.prefs {
				if old, ok := p[k]; ok {
					v = v && old
				}
				p[k] = v
			}
		}
		if len(p) > 0 {
			out = append(out, statement{source: "robots.txt " + kind, prefs: p})
		}
	}
	return out
}

// patternMatches reports whether a robots.txt path pattern matches path.
func patternMatches(path, pattern string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return grobotstxt.Matches(path, pattern)
}

// hostRefusal returns the rule by which rules refuse purpose for every
// path of the host, "" when some path may be allowed: a rule for the
// whole host ("/", "/*" or no path) refuses it, and no rule of its kind
// that does not refuse it has a pattern as long (which would win, or
// share the say, for the paths it matches).
func hostRefusal(rules []signalRule, purpose string) string {
	for _, kind := range []string{signalContentSignal, signalContentUsage} {
		var why string
		whole, longest := -1, -1 // the longest whole-host refusal; the longest other rule
		for _, r := range rules {
			if r.kind != kind {
				continue
			}
			k := r.prefs.refuses(purpose)
			switch {
			case k != "" && (r.pattern == "/" || r.pattern == "/*" || r.pattern == "*"):
				if len(r.pattern) > whole {
					whole, why = len(r.pattern), "robots.txt "+kind+": "+k+"=n"
				}
			case k == "":
				longest = max(longest, len(r.pattern))
			}
		}
		if whole >= 0 && longest < whole {
			return why
		}
	}
	return ""
}
