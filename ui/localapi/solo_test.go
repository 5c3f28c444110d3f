package localapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
)

// fakeSolo is a backend in solo mode (or, with notSolo, in a network)
// keeping its channels in memory.
type fakeSolo struct {
	*fakeBackend
	notSolo bool

	mu    sync.Mutex // guards seeds
	seeds []string
}

var _ Solo = (*fakeSolo)(nil)

func (f *fakeSolo) SoloChannels(context.Context) ([]SoloChannel, error) {
	if f.notSolo {
		return nil, fmt.Errorf("list channels: %w", ErrNotSolo)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []SoloChannel
	for _, s := range f.seeds {
		out = append(out, SoloChannel{ID: strings.Trim(strings.TrimPrefix(s, "http://"), "/"), Seeds: []string{s}})
	}
	return out, nil
}

func (f *fakeSolo) AddSeeds(_ context.Context, urls []string) (SeedsAdded, error) {
	if f.notSolo {
		return SeedsAdded{}, ErrNotSolo
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "http://") {
			return SeedsAdded{}, Invalid(fmt.Errorf("%q: scheme must be http or https", u))
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seeds = append(f.seeds, urls...)
	return SeedsAdded{Added: len(urls)}, nil
}

func (f *fakeSolo) SoloPages(_ context.Context, ch string) (SoloPages, error) {
	if ch != "known.example" {
		return SoloPages{}, fmt.Errorf("channel %s: %w", ch, ErrNotFound)
	}
	return SoloPages{Channel: ch, Total: 1, Pages: []SoloPage{{URL: "http://known.example/", Crawled: time.Unix(0, 0), HasText: true}}}, nil
}

func (f *fakeSolo) SoloText(_ context.Context, u string) (SoloText, error) {
	if u != "http://known.example/" {
		return SoloText{}, fmt.Errorf("text of %s: %w", u, ErrNotFound)
	}
	return SoloText{URL: u, Text: "the words"}, nil
}

func (f *fakeSolo) ChannelAction(_ context.Context, ch, action string) (SoloChannel, error) {
	switch {
	case ch != "known.example":
		return SoloChannel{}, fmt.Errorf("channel %s: %w", ch, ErrNotFound)
	case action == ChannelCrawl:
		return SoloChannel{}, Conflict(fmt.Errorf("%s is being crawled now", ch))
	}
	return SoloChannel{ID: ch, State: action + "d"}, nil
}

func (f *fakeSolo) SetChannel(_ context.Context, ch string, set ChannelSettings) (SoloChannel, error) {
	if set.MaxDepth != nil && *set.MaxDepth > 20 {
		return SoloChannel{}, Invalid(fmt.Errorf("depth %d out of range", *set.MaxDepth))
	}
	out := SoloChannel{ID: ch}
	if set.MaxDepth != nil {
		out.MaxDepth = *set.MaxDepth
	}
	if set.OtherHosts != nil {
		out.OtherHosts = *set.OtherHosts
	}
	return out, nil
}

func (f *fakeSolo) SoloSearch(_ context.Context, q string, n int) (SearchResults, error) {
	if q == "(" {
		return SearchResults{}, Invalid(fmt.Errorf("search %q: syntax error", q))
	}
	return SearchResults{Query: q, Total: 1, Hits: []SearchHit{{URL: "http://known.example/", Snippet: []SnippetSegment{{Text: q, Match: true}}}}}, nil
}

func TestSoloRoutes(t *testing.T) {
	b := &fakeSolo{fakeBackend: newFake()}
	s, _ := start(t, b)
	net := &fakeSolo{fakeBackend: newFake(), notSolo: true}
	sn, _ := start(t, net)
	plain, _ := start(t, newFake())
	tests := []struct {
		name     string
		srv      *Server
		method   string
		path     string
		host     string
		token    bool
		ct, body string
		want     int
		contains string
	}{
		{"channels, empty", s, "GET", "/api/solo/channels", "", true, "", "", 200, "[]"},
		{"seeds without token", s, "POST", "/api/solo/seeds", "", false, "text/plain", "http://a.example/", 401, "API token"},
		{"seeds from a foreign host", s, "POST", "/api/solo/seeds", "evil.example", true, "text/plain", "http://a.example/", 403, "host not allowed"},
		{"channels from a foreign host", s, "GET", "/api/solo/channels", "evil.example", true, "", "", 403, "host not allowed"},
		{"seeds as lines", s, "POST", "/api/solo/seeds", "", true, "text/plain", "# mine\nhttp://a.example/\n\nhttp://b.example/\n", 200, `"added": 2`},
		{"seeds as JSON", s, "POST", "/api/solo/seeds", "", true, "application/json", `{"urls": ["http://c.example/"]}`, 200, `"added": 1`},
		{"a bad seed names itself", s, "POST", "/api/solo/seeds", "", true, "text/plain", "http://d.example/\nftp://e.example/", 400, `ftp://e.example/\": scheme must be http or https`},
		{"no seeds", s, "POST", "/api/solo/seeds", "", true, "text/plain", "\n# nothing\n", 400, "no seed URLs given"},
		{"JSON of the wrong shape", s, "POST", "/api/solo/seeds", "", true, "application/json", `{"url": "http://a.example/"}`, 400, `body must be {\"urls\": [...]}`},
		{"a form", s, "POST", "/api/solo/seeds", "", true, "application/x-www-form-urlencoded", "u=http://a.example/", 400, "unsupported content type"},
		{"too many seeds", s, "POST", "/api/solo/seeds", "", true, "text/plain", strings.Repeat("http://a.example/\n", maxSeedsPerRequest+1), 400, "at most 1000"},
		{"channels after adding", s, "GET", "/api/solo/channels", "", true, "", "", 200, `"id": "c.example"`},
		{"pages without a channel", s, "GET", "/api/solo/pages", "", true, "", "", 400, "name a channel"},
		{"pages of an unknown channel", s, "GET", "/api/solo/pages?channel=nope.example", "", true, "", "", 404, "nope.example"},
		{"pages of a channel", s, "GET", "/api/solo/pages?channel=known.example", "", true, "", "", 200, `"has_text": true`},
		{"text without a URL", s, "GET", "/api/solo/text", "", true, "", "", 400, "name a page"},
		{"text of an unknown page", s, "GET", "/api/solo/text?url=" + url.QueryEscape("http://x.example/"), "", true, "", "", 404, "not found"},
		{"text of a page", s, "GET", "/api/solo/text?url=" + url.QueryEscape("http://known.example/"), "", true, "", "", 200, "the words"},
		{"pause a channel", s, "POST", "/api/solo/channels/known.example/pause", "", true, "", "", 200, `"state": "paused"`},
		{"pause without token", s, "POST", "/api/solo/channels/known.example/pause", "", false, "", "", 401, "API token"},
		{"pause an unknown channel", s, "POST", "/api/solo/channels/nope.example/pause", "", true, "", "", 404, "nope.example"},
		{"crawl now during a crawl", s, "POST", "/api/solo/channels/known.example/crawl", "", true, "", "", 409, "being crawled now"},
		{"an unknown action", s, "POST", "/api/solo/channels/known.example/explode", "", true, "", "", 404, "crawl, pause, resume, remove"},
		{"settings", s, "POST", "/api/solo/channels/known.example/settings", "", true, "application/json", `{"max_depth": 2, "other_hosts": true}`, 200, `"other_hosts": true`},
		{"settings out of range", s, "POST", "/api/solo/channels/known.example/settings", "", true, "application/json", `{"max_depth": 99}`, 400, "out of range"},
		{"settings of the wrong shape", s, "POST", "/api/solo/channels/known.example/settings", "", true, "application/json", `{"depth": 2}`, 400, "body must be"},
		{"search", s, "GET", "/api/solo/search?q=bees", "", true, "", "", 200, `"match": true`},
		{"search without words", s, "GET", "/api/solo/search?q=+", "", true, "", "", 400, "give words"},
		{"search, bad n", s, "GET", "/api/solo/search?q=bees&n=1000", "", true, "", "", 400, "n must be"},
		{"search, bad query", s, "GET", "/api/solo/search?q=(", "", true, "", "", 400, "syntax error"},
		{"seeds by GET", s, "GET", "/api/solo/seeds", "", true, "", "", 405, ""},
		{"channels in a network", sn, "GET", "/api/solo/channels", "", true, "", "", 409, "not in solo mode"},
		{"seeds in a network", sn, "POST", "/api/solo/seeds", "", true, "text/plain", "http://a.example/", 409, "not in solo mode"},
		{"a backend without solo mode", plain, "GET", "/api/solo/channels", "", true, "", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, tt.srv.URL()+tt.path, strings.NewReader(tt.body))
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.token {
				req.Header.Set(loopback.TokenHeader, tt.srv.Token())
			}
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want || !strings.Contains(string(body), tt.contains) {
				t.Fatalf("%s %s: %d %s; want %d containing %q", tt.method, tt.path, resp.StatusCode, body, tt.want, tt.contains)
			}
			if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("security headers %v", resp.Header)
			}
		})
	}
	// The refused request added nothing: all or none.
	chs, _ := b.SoloChannels(context.Background())
	got, _ := json.Marshal(chs)
	if len(chs) != 3 || strings.Contains(string(got), "d.example") {
		t.Errorf("channels after the requests: %s", got)
	}
}
