package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
)

// Solo is what the server needs from a client that can run in solo mode
// (an embedded manager): its channels, adding seeds, and what was crawled.
// When the backend implements it the server answers the /api/solo/
// routes; each method fails with ErrNotSolo outside solo mode.
type Solo interface {
	SoloChannels(ctx context.Context) ([]SoloChannel, error)
	// AddSeeds adds seed URLs, all or none: a bad URL is an Invalid error
	// naming it, and nothing is added.
	AddSeeds(ctx context.Context, urls []string) (SeedsAdded, error)
	// SoloPages lists the pages known of a channel (ErrNotFound for an
	// unknown channel).
	SoloPages(ctx context.Context, channel string) (SoloPages, error)
	// SoloText returns a page's stored text (ErrNotFound when none is).
	SoloText(ctx context.Context, url string) (SoloText, error)
	// ChannelAction applies one of the Channel* actions to a channel and
	// returns it after (ErrNotFound for an unknown or removed channel,
	// ErrConflict for crawl now during a crawl).
	ChannelAction(ctx context.Context, channel, action string) (SoloChannel, error)
	// SetChannel applies settings to a channel, all or none.
	SetChannel(ctx context.Context, channel string, s ChannelSettings) (SoloChannel, error)
	// SoloSearch finds up to n stored pages matching query (an Invalid
	// error for a query that cannot be read).
	SoloSearch(ctx context.Context, query string, n int) (SearchResults, error)
}

// SearchResults is the answer to GET /api/solo/search.
type SearchResults struct {
	Query string      `json:"query"`
	Total uint64      `json:"total"`
	Hits  []SearchHit `json:"hits"`
	Took  string      `json:"took"`
}

// SearchHit is one page found.
type SearchHit struct {
	URL     string    `json:"url"`
	Channel string    `json:"channel"`
	Title   string    `json:"title"`
	Fetched time.Time `json:"fetched"`
	// Snippet is a passage around the matches: plain-text segments, the
	// matched words with Match set.
	Snippet []SnippetSegment `json:"snippet"`
}

// SnippetSegment is a run of a snippet's text.
type SnippetSegment struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// The per-channel actions of POST /api/solo/channels/{id}/{action}.
const (
	ChannelCrawl  = "crawl"  // crawl now, paused or not
	ChannelPause  = "pause"  // start no new crawl
	ChannelResume = "resume" // undo pause
	ChannelRemove = "remove" // stop crawling it and drop it from the list
)

// ChannelActions lists the actions, for usage texts.
var ChannelActions = []string{ChannelCrawl, ChannelPause, ChannelResume, ChannelRemove}

// ChannelSettings are the per-channel choices of POST
// /api/solo/channels/{id}/settings; a missing field is left as it is.
type ChannelSettings struct {
	// MaxDepth is the number of link hops followed from a seed.
	MaxDepth *int `json:"max_depth,omitempty"`
	// MaxPages bounds the pages of one crawl; 0 = the crawler's default.
	MaxPages *int `json:"max_pages,omitempty"`
	// OtherHosts says whether links to other hosts become channels of
	// their own (off by default in solo mode).
	OtherHosts *bool `json:"other_hosts,omitempty"`
}

// The channel states of SoloChannel.State.
const (
	StateCrawling = "crawling" // a crawl is out, no result yet
	StateStarting = "starting" // crawl now was asked; it starts at the next tick
	StateWaiting  = "waiting"  // fine; the next crawl is scheduled
	StatePaused   = "paused"   // paused by the user
	StateFailing  = "failing"  // the last crawl brought nothing: Reason says why
)

// LastCrawl is how a channel's latest crawl ended.
type LastCrawl struct {
	At     time.Time      `json:"at"`
	Pages  int            `json:"pages"`
	Errors map[string]int `json:"errors,omitempty"`
	// Stopped is why it ended early; Lost why no result came.
	Stopped string `json:"stopped,omitempty"`
	Lost    string `json:"lost,omitempty"`
}

// SoloChannel is one web host the embedded manager recrawls.
type SoloChannel struct {
	ID    string    `json:"id"`
	Seeds []string  `json:"seeds"`
	Added time.Time `json:"added"`
	// State is one of the State* values; Reason says in words why a
	// channel is failing or paused, and what to do about it.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Crawling says a round's tasks are out without a result yet.
	Crawling bool `json:"crawling"`
	Paused   bool `json:"paused"`
	// Last is how the latest crawl ended (absent: none has).
	Last *LastCrawl `json:"last,omitempty"`
	// The channel's settings.
	MaxDepth   int  `json:"max_depth"`
	MaxPages   int  `json:"max_pages"`
	OtherHosts bool `json:"other_hosts"`
	// NextCrawl is when the next round is due (it starts at the manager's
	// next tick after that); zero while the schedule does not know the
	// channel yet.
	NextCrawl time.Time `json:"next_crawl,omitzero"`
	// IntervalSeconds is the recrawl interval the strategy gives the
	// channel; 0 = not known yet.
	IntervalSeconds float64 `json:"interval_seconds"`
	// ChangeSeconds is the estimated interval between the host's changes.
	ChangeSeconds float64 `json:"change_seconds"`
	// LastSubmit is when the last round started, LastUpdate when the last
	// result was stored (zero: never).
	LastSubmit time.Time `json:"last_submit,omitzero"`
	LastUpdate time.Time `json:"last_update,omitzero"`
	Rounds     int       `json:"rounds"`
	Updates    int       `json:"updates"`
	Failures   int       `json:"failures"`
	Pages      int       `json:"pages"`
}

// SeedsAdded is the answer to POST /api/solo/seeds.
type SeedsAdded struct {
	// Created are the channels the seeds created; seeds on known hosts
	// join those channels' seeds.
	Created []string `json:"created"`
	// Added counts the seed URLs new to their channels; Known lists those
	// that were seeds already (nothing changed for them).
	Added int      `json:"added"`
	Known []string `json:"known,omitempty"`
	// OptedOut lists the seed URLs on sites that opted out of the
	// crawler: not added.
	OptedOut []string `json:"opted_out,omitempty"`
	// Paused, when set, says why the client is paused: the crawl starts
	// when that ends.
	Paused string `json:"paused,omitempty"`
}

// SoloPages is the answer to GET /api/solo/pages.
type SoloPages struct {
	Channel string     `json:"channel"`
	Total   int        `json:"total"`
	Pages   []SoloPage `json:"pages"`
}

// SoloPage is one page of a channel.
type SoloPage struct {
	URL     string    `json:"url"`
	Crawled time.Time `json:"crawled"`
	// HasText says stored text can be read with SoloText.
	HasText bool `json:"has_text"`
}

// SoloText is one page's stored text, read back from its WARC record.
type SoloText struct {
	URL string `json:"url"`
	// Target is the record's URL, after redirects.
	Target    string    `json:"target"`
	Title     string    `json:"title"`
	Fetched   time.Time `json:"fetched"`
	Text      string    `json:"text"`
	Truncated bool      `json:"truncated"`
	// File and Offset locate the WARC record.
	File   string `json:"file"`
	Offset int64  `json:"offset"`
}

// maxSeedsPerRequest bounds the seeds one request adds.
const maxSeedsPerRequest = 1000

// soloRoutes adds the solo mode routes when the backend offers them.
func (s *Server) soloRoutes() {
	so, ok := s.backend.(Solo)
	if !ok {
		return
	}
	s.mux.HandleFunc("GET /api/solo/channels", func(w http.ResponseWriter, r *http.Request) {
		chs, err := so.SoloChannels(r.Context())
		if err != nil {
			s.fail(w, err)
			return
		}
		if chs == nil {
			chs = []SoloChannel{}
		}
		httpjson.WriteIndented(w, http.StatusOK, chs)
	})
	s.mux.Handle("POST /api/solo/seeds", s.needToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urls, err := parseSeeds(r)
		if err != nil {
			httpjson.ErrorIndented(w, http.StatusBadRequest, err.Error())
			return
		}
		res, err := so.AddSeeds(r.Context(), urls)
		if err != nil {
			s.fail(w, err)
			return
		}
		if res.Created == nil {
			res.Created = []string{}
		}
		httpjson.WriteIndented(w, http.StatusOK, res)
	})))
	s.mux.Handle("POST /api/solo/channels/{id}/{action}", s.needToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, action := r.PathValue("id"), r.PathValue("action")
		var (
			ch  SoloChannel
			err error
		)
		if action == "settings" {
			var set ChannelSettings
			dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&set); err != nil {
				httpjson.ErrorIndented(w, http.StatusBadRequest, fmt.Sprintf(`body must be {"max_depth": N, "max_pages": N, "other_hosts": BOOL} (any of them): %v`, err))
				return
			}
			ch, err = so.SetChannel(r.Context(), id, set)
		} else {
			if !slices.Contains(ChannelActions, action) {
				httpjson.ErrorIndented(w, http.StatusNotFound, fmt.Sprintf("no action %q: one of %s, or settings", action, strings.Join(ChannelActions, ", ")))
				return
			}
			ch, err = so.ChannelAction(r.Context(), id, action)
		}
		if err != nil {
			s.fail(w, err)
			return
		}
		httpjson.WriteIndented(w, http.StatusOK, ch)
	})))
	s.mux.HandleFunc("GET /api/solo/pages", func(w http.ResponseWriter, r *http.Request) {
		ch := r.URL.Query().Get("channel")
		if ch == "" {
			httpjson.ErrorIndented(w, http.StatusBadRequest, "name a channel: /api/solo/pages?channel=HOST")
			return
		}
		ps, err := so.SoloPages(r.Context(), ch)
		if err != nil {
			s.fail(w, err)
			return
		}
		if ps.Pages == nil {
			ps.Pages = []SoloPage{}
		}
		httpjson.WriteIndented(w, http.StatusOK, ps)
	})
	s.mux.HandleFunc("GET /api/solo/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if strings.TrimSpace(q) == "" {
			httpjson.ErrorIndented(w, http.StatusBadRequest, "give words to search for: /api/solo/search?q=WORDS")
			return
		}
		n, ok := countParam(w, r, 20, 100)
		if !ok {
			return
		}
		res, err := so.SoloSearch(r.Context(), q, n)
		if err != nil {
			s.fail(w, err)
			return
		}
		if res.Hits == nil {
			res.Hits = []SearchHit{}
		}
		httpjson.WriteIndented(w, http.StatusOK, res)
	})
	s.mux.HandleFunc("GET /api/solo/text", func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.Query().Get("url")
		if u == "" {
			httpjson.ErrorIndented(w, http.StatusBadRequest, "name a page: /api/solo/text?url=URL")
			return
		}
		t, err := so.SoloText(r.Context(), u)
		if err != nil {
			s.fail(w, err)
			return
		}
		httpjson.WriteIndented(w, http.StatusOK, t)
	})
}

// parseSeeds reads {"urls": [...]} or text with one URL per line (blank
// lines and # comments skipped). The URLs are checked by the backend.
func parseSeeds(r *http.Request) ([]string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("read request: %w", err)
	}
	var urls []string
	switch ct {
	case "application/json":
		var req struct {
			URLs []string `json:"urls"`
		}
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, fmt.Errorf(`body must be {"urls": [...]}: %w`, err)
		}
		for _, u := range req.URLs {
			if u = strings.TrimSpace(u); u != "" {
				urls = append(urls, u)
			}
		}
	case "", "text/plain":
		// Lines end with LF, CRLF or a lone CR.
		text := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n")
		for line := range strings.Lines(text) {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") {
				urls = append(urls, line)
			}
		}
	default:
		return nil, fmt.Errorf("unsupported content type %q (use application/json or text/plain, one URL a line)", ct)
	}
	switch {
	case len(urls) == 0:
		return nil, errors.New("no seed URLs given")
	case len(urls) > maxSeedsPerRequest:
		return nil, fmt.Errorf("%d seed URLs in one request; at most %d", len(urls), maxSeedsPerRequest)
	}
	return urls, nil
}
