package urls

import "strings"

// Tracking and session parameters (the rule list in the package doc). They
// are removed from every canonical URL, so that one page reached through a
// newsletter, an advertisement and a session cookie-less visit is one URL.
// Names match case-insensitively; these are lower case.
var (
	// dropNames are removed whatever their value.
	dropNames = []string{
		// Click and campaign identifiers.
		"gclid", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid",
		"igshid", "mc_cid", "mc_eid", "_ga", "_gl", "ref_src",
		// Session identifiers.
		"jsessionid", "phpsessid", "sessionid", "session_id", "cfid", "cftoken",
	}
	// dropPrefixes are removed whatever follows them and whatever their
	// value: utm_source, utm_medium, ...; ASPSESSIONIDQASDRTCB.
	dropPrefixes = []string{"utm_", "aspsessionid"}
)

// dropRule is one entry of the rule list, filed under its first letter.
type dropRule struct {
	name   string
	prefix bool
}

// dropRules files dropNames and dropPrefixes by first byte, so that most
// parameters are told apart from the list by one array index.
var dropRules = func() (t [128][]dropRule) {
	for _, n := range dropNames {
		t[n[0]] = append(t[n[0]], dropRule{name: n})
	}
	for _, p := range dropPrefixes {
		t[p[0]] = append(t[p[0]], dropRule{name: p, prefix: true})
	}
	return t
}()

// minSessionToken is the shortest value of a "sid" parameter taken for a
// session token (see isSessionToken).
const minSessionToken = 16

// jsessionParam is the path parameter servlet containers add to URLs when a
// visitor refuses cookies: /cart.jsp;jsessionid=0A1B2C?item=9.
const jsessionParam = ";jsessionid="

// stripParams removes the tracking and session parameters from a canonical
// path and query. It returns its arguments unchanged, without allocating,
// when there is nothing to remove; hasQuery turns false when the removal
// leaves an empty query.
func stripParams(path, query string, hasQuery bool) (string, string, bool) {
	path = stripPathSession(path)
	if hasQuery {
		if q, changed := stripQuery(query); changed {
			query, hasQuery = q, q != ""
		}
	}
	return path, query, hasQuery
}

// stripQuery removes the parameters of the rule list from a query ("a=1&b=2",
// without the '?'), keeping the others in their order and spelling.
func stripQuery(query string) (string, bool) {
	// Most queries have nothing to drop: look for the first parameter
	// that goes before building anything.
	first := 0
	for {
		end := strings.IndexByte(query[first:], '&')
		if end < 0 {
			if !dropParam(query[first:]) {
				return query, false
			}
			break
		}
		if dropParam(query[first : first+end]) {
			break
		}
		first += end + 1
	}
	var sb strings.Builder
	sb.Grow(len(query))
	wrote := first > 0 // sb holds at least one parameter, maybe an empty one
	if wrote {
		sb.WriteString(query[:first-1])
	}
	for param := range strings.SplitSeq(query[first:], "&") {
		if dropParam(param) {
			continue
		}
		if wrote {
			sb.WriteByte('&')
		}
		sb.WriteString(param)
		wrote = true
	}
	return sb.String(), true
}

// dropParam reports whether one "name=value" (or "name") of a query is on
// the rule list.
func dropParam(param string) bool {
	if len(param) < 3 {
		return false // nothing on the list is shorter; keeps "s", "q", "id"
	}
	c := param[0]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	if c >= 128 || dropRules[c] == nil {
		return false
	}
	name, value, _ := strings.Cut(param, "=")
	for _, r := range dropRules[c] {
		switch {
		case r.prefix:
			if len(name) >= len(r.name) && strings.EqualFold(name[:len(r.name)], r.name) {
				return true
			}
		case len(name) == len(r.name) && strings.EqualFold(name, r.name):
			return true
		}
	}
	return c == 's' && len(name) == 3 && strings.EqualFold(name, "sid") && isSessionToken(value)
}

// isSessionToken reports whether a "sid" value looks like a session token
// rather than content (a section or story ID): at least minSessionToken
// ASCII letters and digits, with both a letter and a digit in them. A
// slug (letters and hyphens) or a short number is kept.
func isSessionToken(v string) bool {
	if len(v) < minSessionToken {
		return false
	}
	var letter, digit bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		default:
			return false
		}
	}
	return letter && digit
}

// stripPathSession removes ";jsessionid=..." path parameters (up to the
// next ';' or '/') from a canonical path. A segment whose removal would
// leave a dot segment ("/.;jsessionid=x/") is kept whole: it would then
// mean something else to the parser.
func stripPathSession(path string) string {
	if !hasSessionParam(path) {
		return path
	}
	var sb strings.Builder
	sb.Grow(len(path))
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			sb.WriteByte('/')
		}
		if !hasSessionParam(seg) {
			sb.WriteString(seg)
			continue
		}
		mark := sb.Len()
		for j, part := range strings.Split(seg, ";") {
			if j > 0 && len(part) >= len(jsessionParam)-1 && strings.EqualFold(part[:len(jsessionParam)-1], jsessionParam[1:]) {
				continue
			}
			if j > 0 {
				sb.WriteByte(';')
			}
			sb.WriteString(part)
		}
		if isDotSegment(sb.String()[mark:]) {
			// Builder cannot be truncated: start again with this
			// segment kept whole.
			head := sb.String()[:mark]
			sb.Reset()
			sb.Grow(len(path))
			sb.WriteString(head)
			sb.WriteString(seg)
		}
	}
	return sb.String()
}

// hasSessionParam reports whether s holds jsessionParam, in any case.
func hasSessionParam(s string) bool {
	for i := strings.IndexByte(s, ';'); i >= 0; {
		if len(s)-i >= len(jsessionParam) && strings.EqualFold(s[i:i+len(jsessionParam)], jsessionParam) {
			return true
		}
		j := strings.IndexByte(s[i+1:], ';')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// isDotSegment reports whether a path segment is "." or ".." to the WHATWG
// parser, which also reads "%2e" as a dot.
func isDotSegment(seg string) bool {
	switch strings.ToLower(seg) {
	case ".", "..", "%2e", "%2e.", ".%2e", "%2e%2e":
		return true
	}
	return false
}

// stripHref applies stripParams to a canonical href
// ("scheme://host[:port]/path[?query]").
func stripHref(href string) string {
	start := pathStart(href)
	if start < 0 {
		return href
	}
	rest := href[start:]
	path, query, hasQuery := strings.Cut(rest, "?")
	p, q, hq := stripParams(path, query, hasQuery)
	if len(p) == len(path) && len(q) == len(query) && hq == hasQuery {
		return href // stripping only removes
	}
	n := start + len(p)
	if hq {
		n += 1 + len(q)
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteString(href[:start])
	sb.WriteString(p)
	if hq {
		sb.WriteByte('?')
		sb.WriteString(q)
	}
	return sb.String()
}
