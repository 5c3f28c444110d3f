package urls

import (
	"net/url"
	"strings"
)

// RepeatsSegment reports whether some path segment occurs more than max
// times in u's path, the mark of a crawler trap such as /a/b/a/b/a/b/a/b
// produced by relative links on a page that answers for any path. Empty
// segments are not counted. The crawler uses max = 3.
func RepeatsSegment(u *url.URL, max int) bool {
	p := u.EscapedPath()
	if strings.Count(p, "/") <= max {
		return false
	}
	counts := make(map[string]int)
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" {
			continue
		}
		counts[seg]++
		if counts[seg] > max {
			return true
		}
	}
	return false
}

// Dir returns the first-level directory of u's path, the key of
// per-directory statistics: "/news/" for /news/a/b.html and for /news/,
// "/" for /a.html and for an empty path.
func Dir(u *url.URL) string {
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return "/"
	}
	return "/" + p[:i+1]
}
