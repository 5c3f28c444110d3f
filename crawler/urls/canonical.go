package urls

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/nlnwa/whatwg-url/canonicalizer"
	whatwg "github.com/nlnwa/whatwg-url/url"
)

// MaxLength is the longest URL the crawler accepts.
const MaxLength = 2048

// maxInput bounds the reference handed to the WHATWG parser: escaping can
// only grow a URL, so a longer input cannot yield an acceptable one, and
// refusing it early keeps hostile pages from costing parse time.
const maxInput = 4 * MaxLength

// profile is the WHATWG parser plus the crawler's canonicalisation steps that
// the library offers (fragment and user info removal). Percent-escape
// normalisation is done by normalizeEscapes because the library's repeated
// decoding would turn %2F into a path separator and change the resource.
var profile = canonicalizer.New(
	canonicalizer.WithRemoveFragment(),
	canonicalizer.WithRemoveUserInfo(),
)

// canonicalizerOf exposes the profile's post-parse step, which the library
// implements but does not name in its exported interface.
type canonicalizerOf interface {
	Canonicalize(u *whatwg.Url) (*whatwg.Url, error)
}

var canon = profile.(canonicalizerOf)

// Canonical resolves ref against base (nil for an absolute ref) with the
// WHATWG URL algorithm, drops the fragment and the tracking and session
// parameters of the rule list (see the package doc), and accepts only http
// and https URLs of at most MaxLength bytes. Errors wrap ErrInvalid,
// ErrScheme or ErrTooLong.
func Canonical(ref string, base *url.URL) (*url.URL, error) {
	var b *Resolver
	if base != nil {
		var err error
		if b, err = NewResolver(base); err != nil {
			return nil, err
		}
	}
	return b.Resolve(ref)
}

// Resolver resolves many references against one base URL without parsing
// the base again for each: a page's links share its base. A nil *Resolver
// resolves absolute references only. It is safe for concurrent use.
type Resolver struct {
	base *whatwg.Url
	// For fastResolve, from the canonical base: "scheme://host[:port]",
	// its parts, its path and the path up to its last '/'. fastPrefix is
	// empty when the base is not simple enough for the fast path.
	fastPrefix, scheme, host, basePath, baseDir string
}

// NewResolver parses base for Resolve. base must be an absolute http(s) URL.
func NewResolver(base *url.URL) (*Resolver, error) {
	if base == nil {
		return nil, fmt.Errorf("base url: %w", ErrInvalid)
	}
	s := base.String()
	if len(s) > maxInput {
		return nil, fmt.Errorf("base url of %d bytes: %w", len(s), ErrTooLong)
	}
	b, err := profile.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("parse base url %q: %w: %v", clip(s), ErrInvalid, err)
	}
	if sch := b.Scheme(); sch != "http" && sch != "https" {
		return nil, fmt.Errorf("base url scheme %q: %w", sch, ErrScheme)
	}
	r := &Resolver{base: b}
	if cu, err := (*Resolver)(nil).Resolve(s); err == nil && allSimple(cu.Host) && allSimple(cu.EscapedPath()) {
		r.scheme, r.host, r.basePath = cu.Scheme, cu.Host, cu.Path
		r.baseDir = cu.Path[:strings.LastIndexByte(cu.Path, '/')+1]
		r.fastPrefix = cu.Scheme + "://" + cu.Host
	}
	return r, nil
}

// Resolve returns the canonical form of ref resolved against the base.
// Errors wrap ErrInvalid, ErrScheme or ErrTooLong.
func (r *Resolver) Resolve(ref string) (*url.URL, error) {
	if u, ok := r.fastResolve(ref); ok {
		return u, nil
	}
	return r.resolve(ref)
}

// resolve is Resolve without the fast path.
func (r *Resolver) resolve(ref string) (*url.URL, error) {
	if len(ref) > maxInput {
		return nil, fmt.Errorf("url of %d bytes: %w", len(ref), ErrTooLong)
	}
	var (
		w   *whatwg.Url
		err error
	)
	if r == nil {
		w, err = profile.Parse(ref)
	} else {
		// Url.Parse resolves with the parser that made the base, which
		// has no post-parse step: apply it here.
		w, err = r.base.Parse(ref)
		if err == nil {
			w, err = canon.Canonicalize(w)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("parse url %q: %w: %v", clip(ref), ErrInvalid, err)
	}
	if sch := w.Scheme(); sch != "http" && sch != "https" {
		return nil, fmt.Errorf("url scheme %q: %w", sch, ErrScheme)
	}
	if w.Hostname() == "" {
		return nil, fmt.Errorf("url %q has no host: %w", clip(ref), ErrInvalid)
	}
	s := stripHref(normalizeEscapes(w.Href(true)))
	if len(s) > MaxLength {
		return nil, fmt.Errorf("url of %d bytes: %w", len(s), ErrTooLong)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("convert url %q: %w: %v", clip(s), ErrInvalid, err)
	}
	if h := u.Hostname(); strings.HasSuffix(h, ".") {
		// "example.com." is the fully qualified spelling of the host
		// "example.com" names: one host, so one lease and one politeness
		// clock, whichever spelling a link uses.
		h = strings.TrimRight(h, ".")
		if h == "" {
			return nil, fmt.Errorf("url %q has no host: %w", clip(ref), ErrInvalid)
		}
		if p := u.Port(); p != "" {
			h += ":" + p
		}
		u.Host = h
		// Without its dots the host may read otherwise: to the URL
		// standard "0.." is a name and "0" the address 0.0.0.0. Parsed
		// once more, the canonical URL is one that canonicalises to
		// itself.
		return (*Resolver)(nil).resolve(u.String())
	}
	return u, nil
}

// normalizeEscapes rewrites the path and query of a WHATWG href so that
// equivalent spellings meet: escapes are upper-cased, escaped unreserved
// characters decoded, a '%' that starts no escape becomes %25, and path
// bytes that net/url would escape on output are escaped here so that
// (*url.URL).String returns exactly this text.
func normalizeEscapes(href string) string {
	start := pathStart(href)
	if start < 0 {
		return href
	}
	rest := href[start:]
	path, query, hasQuery := strings.Cut(rest, "?")
	var sb strings.Builder
	sb.Grow(len(href) + 8)
	sb.WriteString(href[:start])
	writeNormalized(&sb, path, true)
	if hasQuery {
		sb.WriteByte('?')
		writeNormalized(&sb, query, false)
	}
	return sb.String()
}

// pathStart returns the index of the path in a WHATWG href
// ("scheme://host[:port]/path[?query]"): the first '/' after the
// authority, or -1.
func pathStart(href string) int {
	i := strings.Index(href, "//")
	if i < 0 {
		return -1
	}
	j := strings.IndexByte(href[i+2:], '/')
	if j < 0 {
		return -1
	}
	return i + 2 + j
}

const upperHex = "0123456789ABCDEF"

func writeNormalized(sb *strings.Builder, s string, isPath bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				d := unhex(s[i+1])<<4 | unhex(s[i+2])
				if isUnreserved(d) && !(isPath && d == '.') {
					sb.WriteByte(d)
				} else {
					sb.WriteByte('%')
					sb.WriteByte(upperHex[d>>4])
					sb.WriteByte(upperHex[d&15])
				}
				i += 2
				continue
			}
			sb.WriteString("%25")
			continue
		}
		if isPath && !pathSafe(c) {
			sb.WriteByte('%')
			sb.WriteByte(upperHex[c>>4])
			sb.WriteByte(upperHex[c&15])
			continue
		}
		sb.WriteByte(c)
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// pathSafe reports whether net/url keeps c unescaped in a path.
func pathSafe(c byte) bool {
	if isUnreserved(c) {
		return true
	}
	switch c {
	case '/', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', ':', '@', '[', ']':
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// clip shortens s for error messages.
func clip(s string) string {
	const n = 120
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
