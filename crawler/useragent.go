package crawler

import (
	"regexp"
	"strings"
)

// ProductToken is Hivecrawl's product token: the name robots.txt groups
// address ("User-agent: hivecrawl") and the first word of its User-Agent.
// robots.txt matches it without regard to case.
const ProductToken = "hivecrawl"

// ContactURL is where a site owner finds out what Hivecrawl is and who
// makes it; the default User-Agent names it.
const ContactURL = "https://github.com/hivecrawl/hivecrawl"

// DefaultUserAgent is the User-Agent of a Config that names none: a build
// without a version, UserAgent("", ContactURL). Programs pass their own
// version to UserAgent instead.
const DefaultUserAgent = "Hivecrawl/" + devVersion + " (+" + ContactURL + ")"

// devVersion stands for the version of a build that has no semantic one.
const devVersion = "0.0.0-dev"

// UserAgent returns Hivecrawl's User-Agent for a build and a contact URL:
// UserAgent("v1.4.0", ContactURL) is
// "Hivecrawl/1.4.0 (+https://github.com/hivecrawl/hivecrawl)".
//
// version is the build's release (cmd/hivecrawl's version): a semantic
// version, with or without its "v" ("v1.4.0", "v1.4.0-3-g1f6fbb9-dirty"),
// is sent as it is without the "v"; anything else ("dev", a bare commit
// "1f6fbb9") becomes 0.0.0-dev, with the original as build metadata when
// it fits ("0.0.0-dev+1f6fbb9"), so the header always carries a semantic
// version. An empty contactURL leaves the comment out.
func UserAgent(version, contactURL string) string {
	ua := "Hivecrawl/" + SemanticVersion(version)
	if contactURL != "" {
		ua += " (+" + contactURL + ")"
	}
	return ua
}

// semver is the grammar of semver.org 2.0.0, with an optional leading "v".
var semver = regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// SemanticVersion returns version as a semantic version without a leading
// "v", as UserAgent describes: "v1.4.0" → "1.4.0", "dev" → "0.0.0-dev",
// "1f6fbb9-dirty" → "0.0.0-dev+1f6fbb9-dirty".
func SemanticVersion(version string) string {
	if len(version) <= 64 && semver.MatchString(version) {
		return strings.TrimPrefix(version, "v")
	}
	// Build metadata: dot-separated identifiers of [0-9A-Za-z-].
	var ids []string
	for id := range strings.SplitSeq(version, ".") {
		id = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' {
				return r
			}
			return '-'
		}, id)
		if id != "" {
			ids = append(ids, id)
		}
	}
	meta := strings.Join(ids, ".")
	if meta == "" || meta == "dev" || len(meta) > 64 {
		return devVersion
	}
	return devVersion + "+" + meta
}

// ValidUserAgent reports whether ua can be sent as a User-Agent header and
// starts with the product token robots.txt rules are matched against:
// printable US-ASCII, at most 256 bytes, its first character a letter, "-"
// or "_".
func ValidUserAgent(ua string) bool {
	if len(ua) > 256 || productTokenLen(ua) == 0 {
		return false
	}
	for i := 0; i < len(ua); i++ {
		if ua[i] < 0x20 || ua[i] > 0x7e {
			return false
		}
	}
	return true
}

// validToken reports whether s is a robots.txt product token (RFC 9309
// §2.2.1: letters, "_" and "-" only).
func validToken(s string) bool {
	return s != "" && productTokenLen(s) == len(s)
}

// productTokenLen is the length of the product token s starts with.
func productTokenLen(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			break
		}
		i++
	}
	return i
}
