package crawler

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
)

// Sentinel errors for per-page failures. Callers branch on them with
// errors.Is; Kind turns any of them into the short name counted in
// task.Stats.Errors.
var (
	// ErrBodyTooLarge: the decompressed body exceeded Config.MaxBodyBytes.
	ErrBodyTooLarge = errors.New("body exceeds size limit")
	// ErrTimeout: the request, including its whole body, exceeded
	// Config.PageTimeout.
	ErrTimeout = errors.New("page timed out")
	// ErrForbiddenAddress: the host resolved to a loopback, private,
	// link-local, multicast or unspecified address, which is never dialed.
	ErrForbiddenAddress = errors.New("forbidden address")
	// ErrRedirectLoop: a redirect chain came back to a URL it had visited.
	ErrRedirectLoop = errors.New("redirect loop")
	// ErrTooManyRedirects: a redirect chain was longer than
	// Config.MaxRedirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrContentType: the response was not text (HTML, XHTML, plain text);
	// its body was not read.
	ErrContentType = errors.New("content type not crawled")
	// ErrContentEncoding: the response used a Content-Encoding the crawler
	// did not ask for and cannot decode.
	ErrContentEncoding = errors.New("unsupported content encoding")
	// ErrBadRedirect: a redirect had no usable Location.
	ErrBadRedirect = errors.New("bad redirect location")
	// ErrRobotsDenied: robots.txt disallows the URL.
	ErrRobotsDenied = errors.New("disallowed by robots.txt")
	// ErrRefused: the site's content signals (robots.txt Content-Signal
	// or Content-Usage) refuse the crawl's purpose for the URL.
	ErrRefused = errors.New("refused by the site's content signals")
	// ErrTrap: the URL looks like a crawler trap (a path segment repeated
	// more than three times).
	ErrTrap = errors.New("url trap")
	// ErrHTTPStatus: the server answered with an error status; the status
	// code is in the wrapping StatusError.
	ErrHTTPStatus = errors.New("error status")
)

// StatusError is a response with a status the crawler treats as a failure.
type StatusError struct {
	Code int
}

// Error implements error.
func (e *StatusError) Error() string { return "http status " + strconv.Itoa(e.Code) }

// Unwrap makes errors.Is(err, ErrHTTPStatus) true.
func (e *StatusError) Unwrap() error { return ErrHTTPStatus }

// refusedError is a redirect to a URL the site's content signals refuse
// the crawl's purpose for; rule names the rule.
type refusedError struct{ url, rule string }

func (e *refusedError) Error() string {
	return "redirect to " + e.url + ": " + ErrRefused.Error() + " (" + e.rule + ")"
}

func (e *refusedError) Unwrap() error { return ErrRefused }

// Kind names the kind of a per-page error for task.Stats.Errors and
// task.Page.Error: "timeout", "body_too_large", "http_503", "dns", ...
func Kind(err error) string {
	var se *StatusError
	var dnsErr *net.DNSError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se):
		return "http_" + strconv.Itoa(se.Code)
	case errors.Is(err, ErrForbiddenAddress):
		return "forbidden_address"
	case errors.Is(err, ErrTimeout), errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.Is(err, ErrBodyTooLarge):
		return "body_too_large"
	case errors.Is(err, ErrRedirectLoop):
		return "redirect_loop"
	case errors.Is(err, ErrTooManyRedirects):
		return "too_many_redirects"
	case errors.Is(err, ErrBadRedirect):
		return "bad_redirect"
	case errors.Is(err, ErrContentType):
		return "content_type"
	case errors.Is(err, ErrContentEncoding):
		return "content_encoding"
	case errors.Is(err, ErrTrap):
		return "url_trap"
	case errors.Is(err, ErrRobotsDenied):
		return "robots"
	case errors.Is(err, ErrRefused):
		return "refused"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &dnsErr):
		return "dns"
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return "connection_refused"
	case strings.Contains(msg, "connection reset"), strings.Contains(msg, "broken pipe"),
		strings.Contains(msg, "EOF"):
		return "connection_reset"
	case strings.Contains(msg, "gzip"), strings.Contains(msg, "flate"), strings.Contains(msg, "zlib"):
		return "bad_encoding"
	}
	return "network"
}

// StoppedRefused begins a result's Stopped when the site's robots.txt
// refuses the crawl's purpose for the whole host, before any page:
// "refused by content signals: robots.txt Content-Signal: search=n".
// task.Result.Refused names the rule.
const StoppedRefused = "refused by content signals"

// StoppedUnreachable begins a result's Stopped when the run could not
// reach its host at all, before any page: "unreachable: DNS lookup failed
// for example.org: no such host". What follows is Unreachable's.
const StoppedUnreachable = "unreachable"

// Unreachable says in words why host could not be reached, from the
// error of a request to it: DNS, a refused or reset connection, a
// timeout, no route.
func Unreachable(host string, err error) string {
	var dnsErr *net.DNSError
	msg := err.Error()
	switch {
	case errors.As(err, &dnsErr):
		why := dnsErr.Err
		switch {
		case dnsErr.IsNotFound:
			why = "no such host"
		case dnsErr.IsTimeout:
			why = "no DNS server answered"
		}
		return "DNS lookup failed for " + host + ": " + why
	case strings.Contains(msg, "network is unreachable"), strings.Contains(msg, "no route to host"):
		return "no route to " + host + " (network unreachable: is this machine offline?)"
	}
	switch Kind(err) {
	case "timeout":
		return host + " did not answer in time (timeout)"
	case "connection_refused":
		return host + " refused the connection (nothing listens on its port)"
	case "connection_reset":
		return host + " closed the connection without answering"
	}
	return "could not reach " + host + ": " + msg
}
