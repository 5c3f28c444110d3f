package upload

import (
	"fmt"
	"net/url"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/task"
)

// UploadProtocol is the libp2p protocol of uploads to the storage module.
const UploadProtocol = "/hivecrawl/storage/upload/1.0.0"

// Limits of the upload protocol, enforced by the framing before a message
// is decoded.
const (
	// MaxHeaderSize bounds the header: the signed task plus the result's
	// statistics and inter-site URLs.
	MaxHeaderSize = envelope.MaxSize + 2<<20
	// MaxPageSize bounds one page message (compressed text, base64 in JSON).
	MaxPageSize = 8 << 20
	// MaxPages bounds the pages of one upload.
	MaxPages = 100000
	// MaxUploadBytes bounds the page messages of one upload together; the
	// storage module spools an upload to a file while it stores it.
	MaxUploadBytes = 128 << 20
	// MaxResponseSize bounds the response (a signed receipt).
	MaxResponseSize = 64 << 10
	// MaxInterSite bounds the inter-site URLs one result may report.
	MaxInterSite = 10000
	// MaxNickname bounds the self-chosen name shown on the leaderboard.
	MaxNickname = 64
)

// ErrTooLarge is returned for a message over its size limit.
var ErrTooLarge = frame.ErrTooLarge

// ErrMalformed is wrapped by every decoding failure of a message.
var ErrMalformed = frame.ErrMalformed

// Header opens an upload.
type Header struct {
	// Task is the manager-signed task envelope, as the crawler received it.
	Task []byte `json:"task"`
	// Result is the task's result without its pages.
	Result task.Result `json:"result"`
	// Pages is the number of page messages that follow.
	Pages int `json:"pages"`
	// Nickname is the contributor's chosen name for the leaderboard.
	Nickname string `json:"nickname,omitempty"`
}

// Response ends an upload.
type Response struct {
	// Receipt is the signed credit receipt (see VerifyReceipt); empty when
	// the upload was refused.
	Receipt []byte `json:"receipt,omitempty"`
	// Duplicate is set when another result of the task was stored first:
	// the receipt then grants nothing.
	Duplicate bool `json:"duplicate,omitempty"`
	// Error says why the upload was refused; Final is set when sending it
	// again cannot help (not a task of this manager, not the lease
	// holder's), as against a busy storage module or a broken stream.
	Error string `json:"error,omitempty"`
	Final bool   `json:"final,omitempty"`
}

// DecodeHeader parses and checks a header message.
func DecodeHeader(b []byte) (*Header, error) {
	var h Header
	if err := frame.Strict(b, &h); err != nil {
		return nil, fmt.Errorf("decode upload header: %w", err)
	}
	switch {
	case len(h.Task) == 0 || len(h.Task) > envelope.MaxSize:
		return nil, fmt.Errorf("decode upload header: %w: task envelope of %d bytes", ErrMalformed, len(h.Task))
	case h.Pages < 0 || h.Pages > MaxPages:
		return nil, fmt.Errorf("decode upload header: %w: %d pages outside 0..%d", ErrMalformed, h.Pages, MaxPages)
	case len(h.Result.InterSite) > MaxInterSite:
		return nil, fmt.Errorf("decode upload header: %w: %d inter-site URLs exceed %d", ErrMalformed, len(h.Result.InterSite), MaxInterSite)
	case len(h.Nickname) > MaxNickname:
		return nil, fmt.Errorf("decode upload header: %w: nickname longer than %d bytes", ErrMalformed, MaxNickname)
	}
	return &h, nil
}

// DecodePage parses and checks a page message: an absolute http(s) URL of
// bounded length and sane counters. Its text is checked when it is stored.
func DecodePage(b []byte) (*task.Page, error) {
	var p task.Page
	if err := frame.Strict(b, &p); err != nil {
		return nil, fmt.Errorf("decode page: %w", err)
	}
	if len(p.URL) == 0 || len(p.URL) > task.MaxURLLength || len(p.FinalURL) > task.MaxURLLength || len(p.DuplicateOf) > task.MaxURLLength {
		return nil, fmt.Errorf("decode page: %w: URL length %d", ErrMalformed, len(p.URL))
	}
	for _, s := range []string{p.URL, p.FinalURL, p.DuplicateOf} {
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("decode page: %w: not an absolute http(s) URL: %q", ErrMalformed, s)
		}
	}
	if p.Status < 0 || p.Status > 999 || p.TextBytes < 0 || p.OutLinks < 0 || p.Depth < 0 {
		return nil, fmt.Errorf("decode page %s: %w: negative or out-of-range counter", p.URL, ErrMalformed)
	}
	if len(p.Raw) > task.MaxRawBytes || p.RawBytes < 0 || p.RawBytes > export.MaxTextBytes {
		return nil, fmt.Errorf("decode page %s: %w: raw body of %d bytes (%d uncompressed)", p.URL, ErrMalformed, len(p.Raw), p.RawBytes)
	}
	if len(p.Header) > 0 && (len(p.Raw) == 0 || task.HeaderSize(p.Header) > task.MaxHeaderBytes) {
		return nil, fmt.Errorf("decode page %s: %w: header fields without a raw body or over %d bytes", p.URL, ErrMalformed, task.MaxHeaderBytes)
	}
	return &p, nil
}

// DecodeResponse parses a response message.
func DecodeResponse(b []byte) (*Response, error) {
	var r Response
	if err := frame.Strict(b, &r); err != nil {
		return nil, fmt.Errorf("decode upload response: %w", err)
	}
	return &r, nil
}
