package bucket

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
)

// Defaults for what the environment leaves unset.
const (
	DefaultEndpoint = "https://s3.amazonaws.com"
	DefaultRegion   = "us-east-1"
)

// Config is everything Open needs.
type Config struct {
	Location
	// Endpoint is the server's host[:port]; Secure is false only for an
	// endpoint given as http://.
	Endpoint string
	Secure   bool
	Region   string
	// AccessKey, SecretKey and SessionToken are the credentials (the
	// token only for temporary ones). Never logged.
	AccessKey, SecretKey, SessionToken string
	// PartSize is the part size of multipart uploads; 0 leaves it to
	// minio-go (at least 16 MiB, more for very large files).
	PartSize uint64
}

// FromEnv returns the Config of store URL store with the endpoint,
// region and credentials from the environment as getenv reads it:
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else DefaultEndpoint;
// AWS_REGION, else AWS_DEFAULT_REGION, else DefaultRegion;
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (required) and
// AWS_SESSION_TOKEN.
func FromEnv(store string, getenv func(string) string) (Config, error) {
	loc, err := ParseURL(store)
	if err != nil {
		return Config{}, err
	}
	endpoint := cmp.Or(strings.TrimSpace(getenv("AWS_ENDPOINT_URL_S3")), strings.TrimSpace(getenv("AWS_ENDPOINT_URL")), DefaultEndpoint)
	host, secure, err := ParseEndpoint(endpoint)
	if err != nil {
		return Config{}, err
	}
	c := Config{
		Location: loc, Endpoint: host, Secure: secure,
		Region:       cmp.Or(strings.TrimSpace(getenv("AWS_REGION")), strings.TrimSpace(getenv("AWS_DEFAULT_REGION")), DefaultRegion),
		AccessKey:    getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: getenv("AWS_SESSION_TOKEN"),
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return Config{}, ErrNoCredentials
	}
	return c, nil
}

// ParseEndpoint parses an endpoint URL as the AWS variables give it,
// http(s)://host[:port] with at most a "/" for a path, and returns its
// host[:port] and whether it is https.
func ParseEndpoint(s string) (host string, secure bool, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", false, fmt.Errorf("%w: endpoint %q: %w", ErrInvalidURL, s, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("%w: endpoint %q: want http:// or https://", ErrInvalidURL, s)
	case u.Host == "" || u.Hostname() == "" || strings.HasSuffix(u.Host, ":"):
		return "", false, fmt.Errorf("%w: endpoint %q has no host", ErrInvalidURL, s)
	case u.User != nil:
		return "", false, fmt.Errorf("%w: endpoint %q carries credentials; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", ErrInvalidURL, s)
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", u.Opaque != "":
		return "", false, fmt.Errorf("%w: endpoint %q has a path or query; path-style addressing adds the bucket itself", ErrInvalidURL, s)
	}
	if p := u.Port(); p != "" && !validPort(p) {
		return "", false, fmt.Errorf("%w: endpoint %q has port %q", ErrInvalidURL, s, p)
	}
	return u.Host, u.Scheme == "https", nil
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		if n = n*10 + int(c-'0'); n > 65535 {
			return false
		}
	}
	return n > 0
}
