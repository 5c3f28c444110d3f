package bucket

import (
	"fmt"
	"net/netip"
	"strings"
)

// Scheme is the scheme of a store URL.
const Scheme = "s3"

// MaxPrefix bounds a store URL's prefix, leaving room under S3's limit of
// 1024 bytes per key for the layout's folders and file names.
const MaxPrefix = 512

// Location is a bucket and a key prefix within it: where a store URL
// points.
type Location struct {
	Bucket string
	// Prefix is "" or slash-separated segments without a leading or
	// trailing slash.
	Prefix string
}

// String returns the store URL of l.
func (l Location) String() string {
	if l.Prefix == "" {
		return Scheme + "://" + l.Bucket
	}
	return Scheme + "://" + l.Bucket + "/" + l.Prefix
}

// Key returns the object key of name under l's prefix.
func (l Location) Key(name string) string {
	if l.Prefix == "" {
		return name
	}
	return l.Prefix + "/" + name
}

// ParseURL parses a store URL, s3://bucket or s3://bucket/prefix. The
// bucket follows S3's naming rules for general-purpose buckets (3 to 63
// lower-case letters, digits, dots and hyphens, starting and ending with a
// letter or digit, not an IP address); the prefix is taken literally, as
// the AWS CLI takes it, and is limited to the characters S3 calls safe in
// keys (letters, digits and !-_.*'()) plus '=' and '/', without empty, "."
// or ".." segments. A trailing slash is dropped. Credentials, queries and
// fragments are refused.
func ParseURL(s string) (Location, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !strings.EqualFold(scheme, Scheme) {
		return Location{}, fmt.Errorf("%w: %q does not start with s3://", ErrInvalidURL, s)
	}
	name, prefix, _ := strings.Cut(rest, "/")
	if err := checkBucket(name); err != nil {
		return Location{}, fmt.Errorf("%w: %q: %w", ErrInvalidURL, s, err)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if err := checkPrefix(prefix); err != nil {
		return Location{}, fmt.Errorf("%w: %q: %w", ErrInvalidURL, s, err)
	}
	return Location{Bucket: name, Prefix: prefix}, nil
}

// checkBucket applies S3's naming rules for general-purpose buckets.
func checkBucket(name string) error {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("bucket name %q is not 3 to 63 characters long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !lowerAlnum(c) && c != '.' && c != '-' {
			return fmt.Errorf("bucket name %q has %q: only lower-case letters, digits, dots and hyphens", name, c)
		}
	}
	if !lowerAlnum(name[0]) || !lowerAlnum(name[len(name)-1]) {
		return fmt.Errorf("bucket name %q must start and end with a letter or digit", name)
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("bucket name %q has two dots in a row", name)
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return fmt.Errorf("bucket name %q is an IP address", name)
	}
	if strings.HasPrefix(name, "xn--") {
		return fmt.Errorf("bucket name %q starts with xn--", name)
	}
	return nil
}

// checkPrefix checks a prefix without its trailing slash.
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if len(prefix) > MaxPrefix {
		return fmt.Errorf("prefix longer than %d bytes", MaxPrefix)
	}
	for seg := range strings.SplitSeq(prefix, "/") {
		switch seg {
		case "":
			return fmt.Errorf("prefix %q has an empty segment", prefix)
		case ".", "..":
			return fmt.Errorf("prefix %q has a %q segment", prefix, seg)
		}
		for i := 0; i < len(seg); i++ {
			if !keySafe(seg[i]) {
				return fmt.Errorf("prefix %q has %q: use letters, digits and !-_.*'()= only", prefix, seg[i])
			}
		}
	}
	return nil
}

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func keySafe(c byte) bool {
	return lowerAlnum(c) || c >= 'A' && c <= 'Z' || strings.IndexByte("!-_.*'()=", c) >= 0
}
