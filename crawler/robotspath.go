package crawler

import (
	"net/url"
	"strings"
)

// robotsPath returns s, a robots.txt rule's path pattern or a URL's path
// and query, in the one spelling RFC 9309 §2.2.2 compares them in, so that
// a rule matches however either side escapes the same octets:
//
//   - a percent-encoded unreserved character (ALPHA, DIGIT, "-", ".", "_",
//     "~") is decoded: /%7Ejoe/ is /~joe/;
//   - other escapes are kept, with upper-case hex digits: /a%3cd is
//     /a%3Cd, and /a%2Fb stays a different path from /a/b;
//   - octets outside US-ASCII, and ASCII ones a URI may not hold (controls,
//     space, "\"", "<", ">", "\\", "^", "`", "{", "|", "}", "#", and a "%"
//     that starts no escape), are percent-encoded: /foo/bär is
//     /foo/b%C3%A4r;
//   - reserved characters stay as they are, "*" and "$" (a rule's
//     wildcard and end anchor) among them.
//
// The RFC also asks for reserved characters to be percent-encoded; read
// literally that would make "/" and "%2F" one and the same, so they keep
// the meaning RFC 3986 gives them, as Google's reference parser does.
func robotsPath(s string) string {
	if robotsPathClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(d) {
				b.WriteByte(d)
			} else {
				writeEscape(&b, d)
			}
			i += 2
		case uriLiteral(c) && c != '%':
			b.WriteByte(c)
		default:
			writeEscape(&b, c)
		}
	}
	return b.String()
}

// robotsPathClean reports whether robotsPath would return s unchanged, so
// the common path costs no allocation.
func robotsPathClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) ||
				s[i+1] >= 'a' || s[i+2] >= 'a' || unreserved(unhex(s[i+1])<<4|unhex(s[i+2])) {
				return false
			}
			i += 2
			continue
		}
		if !uriLiteral(c) {
			return false
		}
	}
	return true
}

// unmangleEscapes undoes what grobotstxt (v1.0.3) does to the escapes of
// a rule before handing it over: when a rule holds a lower-case escape or
// a non-ASCII octet, it upper-cases the hex digits of every escape by
// clearing bit 5, which turns the digits 0–9 into the control octets
// 0x10–0x19 ("%3c" arrives as "%\x13C"). A "%" followed by two octets that
// are hex digits or such controls is read as the escape it was.
func unmangleEscapes(v string) string {
	hexOrMangled := func(c byte) bool { return isHexDigit(c) || c >= 0x10 && c <= 0x19 }
	var b []byte
	for i := 0; i+2 < len(v); i++ {
		if v[i] != '%' || !hexOrMangled(v[i+1]) || !hexOrMangled(v[i+2]) {
			continue
		}
		for j := i + 1; j <= i+2; j++ {
			if v[j] < '0' {
				if b == nil {
					b = []byte(v)
				}
				b[j] = v[j] | 0x20
			}
		}
		i += 2
	}
	if b == nil {
		return v
	}
	return string(b)
}

// robotsPathOf returns u's path and query as robots.txt rules see them,
// in robotsPath's spelling.
func robotsPathOf(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return robotsPath(p)
}

// uriLiteral reports whether c may stand unescaped in a URI (RFC 3986
// unreserved and reserved characters, and "%" for escapes), "#" excepted:
// neither a rule nor a path and query can hold a fragment.
func uriLiteral(c byte) bool {
	if unreserved(c) {
		return true
	}
	switch c {
	case ':', '/', '?', '[', ']', '@', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', '%':
		return true
	}
	return false
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	default:
		return c - '0'
	}
}

func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}
