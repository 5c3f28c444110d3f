package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// ErrNotPublic is the dial error of a file on an address the manager
// does not connect to (private, loopback, link-local, ...).
var ErrNotPublic = errors.New("not a public address")

// FileWait bounds the fetch of a file a site serves to prove a claim (an
// IndexNow key, an opt-out token), which the site's request waits for.
const FileWait = 10 * time.Second

// maxRedirects bounds the redirects followed to a proof file, all on its
// host (http to https, say): a file elsewhere proves nothing.
const maxRedirects = 3

// FileClient returns the client that fetches proof files: plain GETs, no
// proxy, no kept connections, to public addresses only (the crawler's
// rule, internal/netguard; allowLoopback is the tests' switch).
func FileClient(allowLoopback bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: netguard.Control(netguard.Allowing(allowLoopback, false), ErrNotPublic)}
	tr := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 5 * time.Second,
		ResponseHeaderTimeout: 5 * time.Second, DisableKeepAlives: true, MaxResponseHeaderBytes: 16 << 10}
	return &http.Client{Transport: tr, Timeout: FileWait, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		// Hosts compared in canonical form (lower case, no default port):
		// http://example.com/ and https://example.com/ are one host,
		// http://example.com:8080/ another.
		if u, err := urls.Canonical(req.URL.String(), nil); err != nil || u.Host != via[0].URL.Host {
			return fmt.Errorf("redirected to another host, %s", req.URL.Host)
		}
		return nil
	}}
}

// Fetcher fetches the files sites serve to prove a claim (an IndexNow
// key, an opt-out token).
type Fetcher struct {
	// Client is FileClient's.
	Client *http.Client
	// UserAgent is the network's, as it stands when a file is fetched.
	UserAgent func() string
}

// Fetch GETs url as plain text within FileWait and returns its body, cut
// at max+1 bytes so the caller can tell a file longer than max.
func (f Fetcher) Fetch(ctx context.Context, url string, max int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, FileWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("could not ask for %s: %v", url, err)
	}
	req.Header.Set("User-Agent", f.UserAgent())
	req.Header.Set("Accept", "text/plain")
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("could not fetch %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("could not read %s: %v", url, err)
	}
	return body, nil
}
