package manager

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
	"github.com/hivecrawl/hivecrawl/manager/indexnow"
)

// errKeyAddress is the dial error of a key file on an address the manager
// does not connect to (private, loopback, link-local, ...).
var errKeyAddress = errors.New("not a public address")

// keyFileWait bounds the fetch of a site's key file, which the site's
// submission waits for.
const keyFileWait = 10 * time.Second

// maxKeyRedirects bounds the redirects followed to a key file, all on its
// host (http to https, say): a key file elsewhere proves nothing.
const maxKeyRedirects = 3

// newKeyClient returns the client that fetches key files: plain GETs,
// no proxy, no kept connections, to public addresses only (the crawler's
// rule, internal/netguard; allowLoopback is the tests' switch).
func newKeyClient(allowLoopback bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: netguard.Control(netguard.Allowing(allowLoopback, false), errKeyAddress)}
	tr := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 5 * time.Second,
		ResponseHeaderTimeout: 5 * time.Second, DisableKeepAlives: true, MaxResponseHeaderBytes: 16 << 10}
	return &http.Client{Transport: tr, Timeout: keyFileWait, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxKeyRedirects {
			return fmt.Errorf("more than %d redirects", maxKeyRedirects)
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

// checkKey fetches the submission's key file with the operator's
// User-Agent and checks that it holds the key. Every failure wraps
// indexnow.ErrKey.
func (h *indexNow) checkKey(ctx context.Context, s indexnow.Submission) error {
	ctx, cancel := context.WithTimeout(ctx, keyFileWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.KeyFile, nil)
	if err != nil {
		return fmt.Errorf("%w: key file %s: %v", indexnow.ErrKey, s.KeyFile, err)
	}
	req.Header.Set("User-Agent", h.m.opts.Policy.UserAgent)
	req.Header.Set("Accept", "text/plain")
	resp, err := h.keys.Do(req)
	if err != nil {
		return fmt.Errorf("%w: could not fetch the key file: %v", indexnow.ErrKey, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: the key file %s answered %s", indexnow.ErrKey, s.KeyFile, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, indexnow.MaxKeyFile+1))
	if err != nil {
		return fmt.Errorf("%w: could not read the key file %s: %v", indexnow.ErrKey, s.KeyFile, err)
	}
	if err := indexnow.MatchKeyFile(body, s.Key); err != nil {
		return fmt.Errorf("key file %s: %w", s.KeyFile, err)
	}
	return nil
}
