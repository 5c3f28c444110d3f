package crawler

import "strings"

// robotsTag reads X-Robots-Tag header values ("noindex, nofollow",
// "none", "hivecrawl: noindex"). A value prefixed by a user agent applies
// only when that is the crawler's product token.
func robotsTag(values []string, agent string) (noindex, nofollow bool) {
	for _, v := range values {
		if name, rest, ok := strings.Cut(v, ":"); ok && !strings.Contains(name, ",") {
			name = strings.TrimSpace(name)
			switch strings.ToLower(name) {
			case "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview":
				// A directive with a value, not an agent prefix.
			default:
				if !strings.EqualFold(name, agent) {
					continue
				}
				v = rest
			}
		}
		for d := range strings.SplitSeq(v, ",") {
			switch strings.ToLower(strings.TrimSpace(d)) {
			case "noindex":
				noindex = true
			case "nofollow":
				nofollow = true
			case "none":
				noindex, nofollow = true, true
			}
		}
	}
	return noindex, nofollow
}
