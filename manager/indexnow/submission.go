package indexnow

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
)

// Submission is a checked Request: one host, a well-formed key, the key
// file's URL and the scope it grants, and the URLs in canonical form.
type Submission struct {
	// Host is the URLs' host with its port when not the default, lower
	// case ("example.com", "127.0.0.1:8080"): the manager's channel ID.
	Host string
	Key  string
	// KeyFile is where the key file is fetched: KeyLocation, or
	// /<key>.txt at the host's root with the first URL's scheme.
	KeyFile string
	// Scope is the path prefix every URL must have: the key file's
	// directory, "/" for the root.
	Scope string
	// URLs are the submitted URLs, canonical (crawler/urls) and without
	// duplicates, in the order given.
	URLs []string
}

// Check checks r as the protocol says: a well-formed key; at least one
// and at most MaxURLs URLs, each an http(s) URL; all on one host, the
// Host field's when it is given; the key file on that host; every URL
// inside the key file's directory.
func (r Request) Check() (Submission, error) {
	if r.Key == "" {
		return Submission{}, fmt.Errorf("%w: no key", ErrInvalid)
	}
	if !ValidKey(r.Key) {
		return Submission{}, fmt.Errorf("%w: the key must be %d to %d characters of a-z, A-Z, 0-9 and '-'", ErrInvalid, MinKey, MaxKey)
	}
	switch {
	case len(r.URLs) == 0:
		return Submission{}, fmt.Errorf("%w: no URL", ErrInvalid)
	case len(r.URLs) > MaxURLs:
		return Submission{}, fmt.Errorf("%w: %d URLs, at most %d per submission", ErrInvalid, len(r.URLs), MaxURLs)
	}
	s := Submission{Key: r.Key, URLs: make([]string, 0, len(r.URLs))}
	parsed := make([]*url.URL, 0, len(r.URLs))
	seen := make(map[string]bool, len(r.URLs))
	for i, raw := range r.URLs {
		u, err := urls.Canonical(raw, nil)
		if err != nil {
			return Submission{}, fmt.Errorf("%w: URL %d: %v", ErrInvalid, i+1, err)
		}
		if s.Host == "" {
			s.Host = u.Host
			if r.Host != "" && !sameHost(r.Host, u) {
				return Submission{}, fmt.Errorf("%w: %s is not on host %q", ErrOffScope, clip(u.String()), clip(r.Host))
			}
		}
		if u.Host != s.Host {
			return Submission{}, fmt.Errorf("%w: %s is not on host %s", ErrOffScope, clip(u.String()), s.Host)
		}
		if k := u.String(); !seen[k] {
			seen[k] = true
			s.URLs = append(s.URLs, k)
			parsed = append(parsed, u)
		}
	}
	s.KeyFile, s.Scope = parsed[0].Scheme+"://"+s.Host+"/"+s.Key+".txt", "/"
	if r.KeyLocation != "" {
		k, err := urls.Canonical(r.KeyLocation, nil)
		if err != nil {
			return Submission{}, fmt.Errorf("%w: keyLocation: %v", ErrInvalid, err)
		}
		if k.Host != s.Host {
			return Submission{}, fmt.Errorf("%w: the key file %s is not on host %s", ErrOffScope, clip(k.String()), s.Host)
		}
		p := k.EscapedPath()
		s.KeyFile, s.Scope = k.String(), p[:strings.LastIndexByte(p, '/')+1]
	}
	for _, u := range parsed {
		if !strings.HasPrefix(u.EscapedPath(), s.Scope) {
			return Submission{}, fmt.Errorf("%w: %s is outside %s, the directory of the key file", ErrOffScope, clip(u.String()), s.Scope)
		}
	}
	return s, nil
}

// CacheKey names what a successful key-file check proved: this key, at
// this location, speaks for this host.
func (s Submission) CacheKey() string { return s.Host + " " + s.Key + " " + s.KeyFile }

// sameHost reports whether the protocol's host field names u's host: the
// host name alone, or with the port, in any case.
func sameHost(field string, u *url.URL) bool {
	field = strings.ToLower(strings.TrimSpace(field))
	return field == u.Host || field == u.Hostname() || field == "["+u.Hostname()+"]"
}

// clip shortens s for an error message that goes back to the submitter.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
