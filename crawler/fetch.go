package crawler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// drainLimit is how much of an unwanted body (redirect, error page, image)
// is read so the connection can be reused; a longer body closes it instead.
const drainLimit = 64 << 10

// acceptHeader asks for the content types the crawler keeps.
const acceptHeader = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"

// fetcher is the downloader of one task: one http.Transport allowing one
// connection per host at a time, one request at a time, bodies drained so
// the keep-alive connection is reused (the package doc says when it is
// not). Its idle timeout outlasts the longest politeness wait (the
// contributor's delay, at most a minute; Crawl-delay and Retry-After,
// at most MaxCrawlDelay), so a wait never costs the connection.
type fetcher struct {
	cfg       *Config
	transport *http.Transport
	client    *http.Client
}

// newFetcher returns a fetcher whose dialer refuses non-public addresses
// after DNS resolution, before connecting.
func newFetcher(cfg *Config) *fetcher {
	dialer := &net.Dialer{
		Timeout:   cfg.PageTimeout,
		KeepAlive: 30 * time.Second,
		Control:   netguard.Control(netguard.Allowing(cfg.AllowLoopback, cfg.AllowTestNets), ErrForbiddenAddress),
	}
	if ip := net.ParseIP(cfg.SourceIP); ip != nil {
		dialer.LocalAddr = &net.TCPAddr{IP: ip}
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would bypass the address check
		DialContext:            dialer.DialContext,
		MaxConnsPerHost:        1,
		MaxIdleConnsPerHost:    1,
		MaxIdleConns:           4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    cfg.PageTimeout,
		ResponseHeaderTimeout:  cfg.PageTimeout,
		DisableCompression:     true, // decoded by hand so the size cap counts decompressed bytes
		MaxResponseHeaderBytes: 64 << 10,
	}
	if cfg.WrapDial != nil {
		tr.DialContext = cfg.WrapDial(tr.DialContext)
	}
	if cfg.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs}
	}
	return &fetcher{
		cfg:       cfg,
		transport: tr,
		client: &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse // every hop is filtered by the crawl loop
			},
		},
	}
}

// close drops the task's idle connection.
func (f *fetcher) close() { f.transport.CloseIdleConnections() }

// request is one GET.
type request struct {
	URL *url.URL
	// ETag and LastModified make the request conditional.
	ETag, LastModified string
	// AnyType accepts every content type (robots.txt).
	AnyType bool
	// MaxBody overrides Config.MaxBodyBytes when positive.
	MaxBody int64
}

// response is one HTTP exchange; redirects are not followed.
type response struct {
	Status      int
	Header      http.Header
	ContentType string // media type, lower case, without parameters
	RawType     string // the Content-Type header as sent
	Body        []byte // decompressed; nil unless a 2xx text response
	WireBytes   int64  // bytes read off the connection (after chunking, before decoding)
	RTT         time.Duration
	Transfer    time.Duration
	// Addr is the IP address of the server the request went to.
	Addr string
}

// fetch performs one GET under the per-page timeout, which covers the whole
// body. A 2xx text response has its body read (decompressed, capped); any
// other response is returned with its body drained. When the body exceeds
// the cap, the response is returned with the truncated body and
// ErrBodyTooLarge.
func (f *fetcher) fetch(ctx context.Context, r request) (*response, error) {
	pctx, cancel := context.WithTimeout(ctx, f.cfg.PageTimeout)
	defer cancel()
	resp, err := f.do(pctx, r)
	if err != nil && pctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = fmt.Errorf("get %s: %w", r.URL.Redacted(), ErrTimeout)
	}
	return resp, err
}

func (f *fetcher) do(ctx context.Context, r request) (*response, error) {
	var wrote, firstByte atomic.Int64
	var addr atomic.Pointer[string]
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if ta, ok := info.Conn.RemoteAddr().(*net.TCPAddr); ok {
				s := ta.AddrPort().Addr().Unmap().String()
				addr.Store(&s)
			}
		},
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote.Store(time.Now().UnixNano()) },
		GotFirstResponseByte: func() { firstByte.Store(time.Now().UnixNano()) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, r.URL.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", r.URL.Redacted(), err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		req.Header.Set("If-Modified-Since", r.LastModified)
	}
	if f.cfg.Sign != nil {
		if err := f.cfg.Sign(req); err != nil {
			return nil, fmt.Errorf("get %s: sign request: %w", r.URL.Redacted(), err)
		}
	}
	hr, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", r.URL.Redacted(), err)
	}
	defer hr.Body.Close()

	out := &response{Status: hr.StatusCode, Header: hr.Header, RawType: hr.Header.Get("Content-Type")}
	out.ContentType = mediaType(out.RawType)
	body := &meteredReader{ctx: ctx, r: hr.Body, limiter: f.cfg.Limiter}
	if a := addr.Load(); a != nil {
		out.Addr = *a
	}
	finish := func() {
		out.WireBytes = body.n
		end := time.Now().UnixNano()
		if fb := firstByte.Load(); fb != 0 {
			out.Transfer = time.Duration(end - fb)
			if w := wrote.Load(); w != 0 && fb > w {
				out.RTT = time.Duration(fb - w)
			}
		}
	}
	defer finish()

	if hr.StatusCode < 200 || hr.StatusCode > 299 {
		drain(body, hr.ContentLength)
		return out, nil
	}
	if !r.AnyType && out.ContentType != "" && !textType(out.ContentType) {
		drain(body, hr.ContentLength)
		return out, fmt.Errorf("get %s: %w: %s", r.URL.Redacted(), ErrContentType, out.ContentType)
	}
	limit := f.cfg.MaxBodyBytes
	if r.MaxBody > 0 {
		limit = r.MaxBody
	}
	data, err := readBody(body, hr.Header.Get("Content-Encoding"), limit, hr.ContentLength)
	out.Body = data
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", r.URL.Redacted(), ctx.Err())
		}
		if errors.Is(err, ErrBodyTooLarge) {
			return out, fmt.Errorf("read %s: %w", r.URL.Redacted(), err)
		}
		return nil, fmt.Errorf("read %s: %w", r.URL.Redacted(), err)
	}
	if !r.AnyType && out.ContentType == "" {
		// No Content-Type: sniff, and keep only what looks like text.
		sniffed := mediaType(http.DetectContentType(data))
		if !textType(sniffed) {
			return out, fmt.Errorf("get %s: %w: sniffed %s", r.URL.Redacted(), ErrContentType, sniffed)
		}
		out.ContentType = sniffed
		out.RawType = sniffed
	}
	return out, nil
}

// mediaType returns the lower-case media type of a Content-Type value.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// textType reports whether a media type is one the crawler keeps.
func textType(mt string) bool {
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
		return true
	}
	return false
}
