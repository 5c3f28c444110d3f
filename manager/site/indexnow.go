package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/indexnow"
)

// IndexNowPath is where web sites submit changed URLs (the protocol's
// path), on the manager.Options.Site.IndexNow listener.
const IndexNowPath = "/indexnow"

// Bounds of the IndexNow endpoint besides manager/indexnow's per-request
// limits: verified keys kept, and hosts whose submission rate is tracked.
const (
	maxIndexNowKeys  = 10_000
	maxIndexNowHosts = 10_000
)

// IndexNowResponse answers an accepted submission (200): how many URLs
// wait for the channel's next round, and how many were left out (outside
// the channel's filters, or beyond channels.MaxPushed).
type IndexNowResponse struct {
	Accepted int `json:"accepted"`
	Ignored  int `json:"ignored,omitempty"`
}

// Channels is what the IndexNow endpoint needs of the channel database.
type Channels interface {
	Get(host string) (channels.Channel, error)
	Push(host string, urls []string, now time.Time) (channels.PushOutcome, error)
}

// IndexNowConfig is what the IndexNow endpoint needs of the manager.
type IndexNowConfig struct {
	Channels Channels
	// Wake asks for a schedule round now: a pushed URL is due.
	Wake func()
	// Fetcher fetches key files.
	Fetcher Fetcher
	Now     func() time.Time
	Log     *slog.Logger
}

// indexNow takes IndexNow submissions (docs/operator/indexnow.md): a site pushes
// URLs it changed; once its key file is verified they go to its channel,
// which is crawled at the next tick. Only hosts the manager has a channel
// for are accepted; the key check is synchronous, so the answer is 200 or
// a refusal, never 202.
type indexNow struct {
	IndexNowConfig
	verified *indexnow.Cache
	limits   *indexnow.Limiter
}

// IndexNowHandler serves IndexNowPath alone.
func IndexNowHandler(c IndexNowConfig) http.Handler {
	h := &indexNow{IndexNowConfig: c,
		verified: indexnow.NewCache(indexnow.DefaultVerifiedFor, maxIndexNowKeys),
		limits:   indexnow.NewLimiter(indexnow.DefaultBurst, indexnow.DefaultEvery, maxIndexNowHosts)}
	mux := http.NewServeMux()
	mux.Handle(IndexNowPath, h)
	return mux
}

func (h *indexNow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	var req indexnow.Request
	var err error
	switch r.Method {
	case http.MethodGet:
		req, err = indexnow.ParseQuery(r.URL.Query())
	case http.MethodPost:
		req, err = indexnow.ParseJSON(http.MaxBytesReader(w, r.Body, indexnow.MaxBody))
	default:
		w.Header().Set("Allow", "GET, POST")
		httpjson.Error(w, http.StatusMethodNotAllowed, "submit URLs with GET "+IndexNowPath+"?url=…&key=… or POST "+IndexNowPath)
		return
	}
	if err != nil {
		h.refuse(w, "", err)
		return
	}
	sub, err := req.Check()
	if err != nil {
		h.refuse(w, "", err)
		return
	}
	now := h.Now()
	if c, err := h.Channels.Get(sub.Host); err != nil || c.Removed() {
		h.refuse(w, sub.Host, fmt.Errorf("%w: this crawler does not crawl %s", indexnow.ErrOffScope, sub.Host))
		return
	}
	if ok, wait := h.limits.Allow(sub.Host, now); !ok {
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		httpjson.Error(w, http.StatusTooManyRequests, fmt.Sprintf("too many submissions for %s: at most %d at once, then one every %v; try again in %d s",
			sub.Host, indexnow.DefaultBurst, indexnow.DefaultEvery, secs))
		return
	}
	if !h.verified.Has(sub.CacheKey(), now) {
		if err := h.checkKey(r.Context(), sub); err != nil {
			h.refuse(w, sub.Host, err)
			return
		}
		h.verified.Add(sub.CacheKey(), now)
	}
	out, err := h.Channels.Push(sub.Host, sub.URLs, now)
	switch {
	case errors.Is(err, channels.ErrNotFound) || errors.Is(err, channels.ErrRemoved):
		h.refuse(w, sub.Host, fmt.Errorf("%w: this crawler does not crawl %s", indexnow.ErrOffScope, sub.Host))
		return
	case err != nil:
		h.Log.Warn("IndexNow submission not recorded", "host", sub.Host, "err", err)
		httpjson.Error(w, http.StatusInternalServerError, "the submission could not be recorded; try again later")
		return
	}
	if out.Due {
		h.Wake()
	}
	h.Log.Info("URLs pushed by IndexNow", "host", sub.Host, "accepted", out.Added, "ignored", out.Ignored)
	httpjson.Write(w, http.StatusOK, IndexNowResponse{Accepted: out.Added, Ignored: out.Ignored})
}

// refuse answers a submission refused for err with the protocol's status.
func (h *indexNow) refuse(w http.ResponseWriter, host string, err error) {
	code := indexNowStatus(err)
	h.Log.Debug("IndexNow submission refused", "host", host, "status", code, "err", err)
	httpjson.Error(w, code, err.Error())
}

// indexNowStatus is the protocol's answer to a submission refused for
// err: 413 for a body over indexnow.MaxBody, 400, 422 or 403 for the
// package's sentinel errors.
func indexNowStatus(err error) int {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, indexnow.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, indexnow.ErrOffScope):
		return http.StatusUnprocessableEntity
	case errors.Is(err, indexnow.ErrKey):
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

// checkKey fetches the submission's key file with the operator's
// User-Agent and checks that it holds the key. Every failure wraps
// indexnow.ErrKey.
func (h *indexNow) checkKey(ctx context.Context, s indexnow.Submission) error {
	body, err := h.Fetcher.Fetch(ctx, s.KeyFile, indexnow.MaxKeyFile)
	if err != nil {
		return fmt.Errorf("%w: the key file: %v", indexnow.ErrKey, err)
	}
	if err := indexnow.MatchKeyFile(body, s.Key); err != nil {
		return fmt.Errorf("key file %s: %w", s.KeyFile, err)
	}
	return nil
}
