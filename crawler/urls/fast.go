package urls

import (
	"net/url"
	"strings"
)

// fastResolve resolves the common, simple references — same-site paths and
// queries made only of characters that neither the WHATWG parser nor the
// canonical form change — without running the full parser, which costs
// several microseconds per link. It returns ok=false for anything else
// (other hosts, escapes, dot segments, backslashes, whitespace, non-ASCII,
// fragments), which then takes the full path. FuzzFastResolve checks that
// both paths agree.
func (r *Resolver) fastResolve(ref string) (u *url.URL, ok bool) {
	if r == nil || r.fastPrefix == "" || ref == "" || len(ref) > MaxLength {
		return nil, false
	}
	if !allSimple(ref) {
		return nil, false
	}
	var path, query string
	hasQuery := false
	switch {
	case strings.HasPrefix(ref, r.fastPrefix) && len(ref) > len(r.fastPrefix) && ref[len(r.fastPrefix)] == '/':
		// Absolute URL on the base's own origin, already canonical.
		path, query, hasQuery = strings.Cut(ref[len(r.fastPrefix):], "?")
	case ref[0] == '/':
		if len(ref) > 1 && ref[1] == '/' {
			return nil, false // scheme-relative: another host
		}
		path, query, hasQuery = strings.Cut(ref, "?")
	case ref[0] == '?':
		path, query, hasQuery = r.basePath, ref[1:], true
	default:
		rel, q, hq := strings.Cut(ref, "?")
		if strings.IndexByte(rel, ':') >= 0 {
			return nil, false // may be a scheme ("mailto:")
		}
		path, query, hasQuery = r.baseDir+rel, q, hq
	}
	if path == "" || path[0] != '/' || hasDotSegment(path) {
		return nil, false
	}
	path, query, hasQuery = stripParams(path, query, hasQuery)
	n := len(r.fastPrefix) + len(path)
	if hasQuery {
		n += 1 + len(query)
	}
	if n > MaxLength {
		return nil, false
	}
	u = &url.URL{Scheme: r.scheme, Host: r.host, Path: path}
	if hasQuery {
		u.RawQuery = query
		u.ForceQuery = query == ""
	}
	return u, true
}

func allSimple(s string) bool {
	for i := 0; i < len(s); i++ {
		if !simple(s[i]) {
			return false
		}
	}
	return true
}

// simple reports whether c passes unchanged through WHATWG parsing, the
// canonical form and net/url's path escaping, in both path and query, and
// carries no special meaning beyond '/' and '?'. ('!', '*', '(' and ')'
// would need url.URL.RawPath set; they are rare enough to leave to the full
// parser.)
func simple(c byte) bool {
	if isUnreserved(c) {
		return true
	}
	switch c {
	case '/', '?', '=', '&', '+', ',', ';', '$', ':', '@':
		return true
	}
	return false
}

// hasDotSegment reports whether path has a "." or ".." segment.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
