package extract

import "strings"

// knownDirectives are robots directive names (Google's list plus older
// ones). In an X-Robots-Tag value, "name: ..." with a known name is a
// directive with a value (unavailable_after: DATE, max-snippet: 20); any
// other product-token name scopes the directives after it to that crawler.
var knownDirectives = map[string]bool{
	"all": true, "index": true, "follow": true, "noindex": true, "nofollow": true,
	"none": true, "noarchive": true, "nocache": true, "nosnippet": true,
	"notranslate": true, "noimageindex": true, "indexifembedded": true,
	"noodp": true, "noydir": true, "unavailable_after": true,
	"max-snippet": true, "max-image-preview": true, "max-video-preview": true,
}

// directives reads a comma-separated directive list (the content of a robots
// <meta>): noindex, nofollow, and none for both. Unknown directives are
// ignored; the most restrictive wins.
func directives(list string) (noindex, nofollow bool) {
	for d := range strings.SplitSeq(list, ",") {
		ni, nf := directive(d)
		noindex = noindex || ni
		nofollow = nofollow || nf
	}
	return noindex, nofollow
}

func directive(d string) (noindex, nofollow bool) {
	switch strings.ToLower(strings.TrimSpace(d)) {
	case "noindex":
		return true, false
	case "nofollow":
		return false, true
	case "none":
		return true, true
	}
	return false, false
}

// RobotsTag parses X-Robots-Tag header values per Google's rules: each value
// is a comma-separated list of directives that apply to every crawler,
// unless prefixed by a crawler's product token ("googlebot: noindex"), in
// which case the directives up to the next token prefix apply to that
// crawler only. userAgent is compared case-insensitively. "none" means
// noindex and nofollow; the most restrictive directive wins.
func RobotsTag(values []string, userAgent string) (noindex, nofollow bool) {
	ua := strings.ToLower(strings.TrimSpace(userAgent))
	for _, v := range values {
		applies := true // a value without a prefix speaks to all crawlers
		for item := range strings.SplitSeq(v, ",") {
			if name, rest, ok := strings.Cut(item, ":"); ok {
				name = strings.ToLower(strings.TrimSpace(name))
				if knownDirectives[name] {
					continue // a directive with a value; none that we act on
				}
				if !isProductToken(name) {
					continue // e.g. the time in a date after unavailable_after
				}
				applies = name == ua
				item = rest
			}
			if !applies {
				continue
			}
			ni, nf := directive(item)
			noindex = noindex || ni
			nofollow = nofollow || nf
		}
	}
	return noindex, nofollow
}

// isProductToken reports whether s looks like a crawler's product token
// (RFC 9309 §2.2.1: letters, '_' and '-').
func isProductToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
