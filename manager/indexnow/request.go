package indexnow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
)

// Limits on one submission. The protocol allows up to 10,000 URLs per
// POST; MaxBody leaves them some 400 bytes each.
const (
	MaxURLs = 10_000
	MaxBody = 4 << 20
	// MinKey and MaxKey bound a key's length.
	MinKey = 8
	MaxKey = 128
)

// Request is one submission as a site sent it, before any check.
type Request struct {
	// Host is the host the URLs belong to; empty in the GET form, where
	// it is the URL's.
	Host string `json:"host"`
	Key  string `json:"key"`
	// KeyLocation is the key file's URL when it is not /<key>.txt at the
	// host's root; its directory limits the URLs the key may submit.
	KeyLocation string   `json:"keyLocation"`
	URLs        []string `json:"urlList"`
}

// ParseQuery reads the GET form: url, key and keyLocation parameters.
func ParseQuery(q url.Values) (Request, error) {
	r := Request{Key: q.Get("key"), KeyLocation: q.Get("keyLocation")}
	switch u := q["url"]; len(u) {
	case 0:
		return Request{}, fmt.Errorf("%w: no url parameter", ErrInvalid)
	case 1:
		r.URLs = u
	default:
		return Request{}, fmt.Errorf("%w: %d url parameters; submit several URLs with POST", ErrInvalid, len(u))
	}
	return r, nil
}

// ParseJSON reads the POST form's JSON body, at most MaxBody bytes of it
// (the caller bounds the reader too, to answer 413). Unknown fields are
// ignored, as other engines accept them; anything after the object is
// refused.
func ParseJSON(body io.Reader) (Request, error) {
	dec := json.NewDecoder(io.LimitReader(body, MaxBody+1))
	var r Request
	if err := dec.Decode(&r); err != nil {
		return Request{}, fmt.Errorf("%w: body must be {\"host\", \"key\", \"keyLocation\", \"urlList\"}: %w", ErrInvalid, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Request{}, fmt.Errorf("%w: data after the JSON object", ErrInvalid)
	}
	if len(r.URLs) > MaxURLs {
		return Request{}, fmt.Errorf("%w: %d URLs, at most %d per submission", ErrInvalid, len(r.URLs), MaxURLs)
	}
	return r, nil
}

// ValidKey reports whether key has the protocol's form: 8 to 128
// characters of a-z, A-Z, 0-9 and '-'.
func ValidKey(key string) bool {
	if len(key) < MinKey || len(key) > MaxKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
