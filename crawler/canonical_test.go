package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// hitsOf counts the requests for exactly the path (with its query).
func (s *site) hitsOf(uri string) int {
	n := 0
	for _, h := range s.requests(uri) {
		if h.Path == uri {
			n++
		}
	}
	return n
}

// textOf decompresses a page's text.
func textOf(t *testing.T, p *task.Page) string {
	t.Helper()
	if len(p.Text) == 0 {
		return ""
	}
	b, err := textcodec.Decode(p.Text, p.Compression)
	if err != nil {
		t.Fatalf("decompress text of %s: %v", p.URL, err)
	}
	return string(b)
}

func withCanonical(href, body string) string {
	return fmt.Sprintf(`<!doctype html><html><head><title>T</title><link rel="canonical" href="%s"></head><body>%s</body></html>`, href, body)
}

func TestTrackingParametersFetchOnePageOnce(t *testing.T) {
	s := newSite(t, pages(map[string]string{
		"/": html(links("/story?utm_source=newsletter&utm_medium=email", "/story?fbclid=IwAR0xyz",
			"/story;jsessionid=0A1B2C3D4E5F", "/story?ID=7&gclid=Cj0K")),
		"/story": html("<p>The one story, reached by many links.</p>"),
	}))
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/?utm_campaign=spring"}, MaxDepth: 1})
	if got := s.hitsOf("/story"); got != 1 {
		t.Errorf("/story fetched %d times, want once; requests %v", got, s.requests("/story"))
	}
	if got := s.hitsOf("/story?ID=7"); got != 1 {
		t.Errorf("/story?ID=7 fetched %d times, want once", got)
	}
	if s.hitsOf("/") != 1 || sink.byURL(s.URL+"/") == nil {
		t.Errorf("seed not fetched as / (requests %v)", s.requests(""))
	}
	if res.Stats.PagesFetched != 3 || len(sink.pages) != 3 {
		t.Errorf("%d pages fetched, %d recorded, want 3", res.Stats.PagesFetched, len(sink.pages))
	}
	for _, p := range sink.pages {
		if strings.Contains(p.URL, "utm_") || strings.Contains(p.URL, "clid") || strings.Contains(p.URL, "jsessionid") {
			t.Errorf("page recorded under %s", p.URL)
		}
	}
}

func TestCanonicalLink(t *testing.T) {
	other := newSite(t, pages(map[string]string{"/story": html("elsewhere")}))
	const story = "<p>The story itself, told in full.</p>"
	noindex := func(page string) string {
		return strings.Replace(page, "<head>", `<head><meta name="robots" content="noindex">`, 1)
	}
	site := pages(map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /private/\n",
		// The canonical waits in URLtodo when its alias is recorded.
		"/queued/":      html(links("/queued/print", "/queued/story")),
		"/queued/print": withCanonical("/queued/story", story+links("/queued/more")),
		"/queued/story": html(story),
		"/queued/more":  html("more"),
		// The canonical is first linked from its alias.
		"/unseen/":      html(links("/unseen/print")),
		"/unseen/print": withCanonical("story?utm_source=x", story+links("/unseen/story")),
		"/unseen/story": html(story),
		// The canonical was fetched first: its aliases are duplicates.
		"/dup/":       html(links("/dup/story", "/dup/print", "/dup/print2")),
		"/dup/story":  html(story),
		"/dup/print":  withCanonical("/dup/story", story+links("/dup/child")),
		"/dup/child":  html("child"),
		"/dup/print2": withCanonical("/dup/story?fbclid=x", story),
		// Canonicals that do not count.
		"/ignored/host":    withCanonical(other.URL+"/story", story),
		"/ignored/robots":  withCanonical("/private/story", story),
		"/ignored/filter":  withCanonical("/outside/story", story),
		"/ignored/noindex": noindex(withCanonical("/ignored/story", story)),
		"/ignored/scheme":  withCanonical("ftp://example.com/story", story),
		"/ignored/self":    withCanonical("/ignored/self?utm_medium=x", story),
		"/ignored/story":   html(story),
		// The canonical was confirmed unchanged by a 304.
		"/rc/":      html(links("/rc/print")),
		"/rc/print": withCanonical("/rc/story", story),
		"/rc/story": html(story),
	})
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rc/story" && r.Header.Get("If-None-Match") == `"v"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		site.ServeHTTP(w, r)
	}))
	filters := []string{`/(queued|unseen|dup|rc|ignored|private)/`}

	t.Run("recorded under the canonical, which is not fetched", func(t *testing.T) {
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/queued/"}, MaxDepth: 2, Filters: filters})
		p := sink.byURL(s.URL + "/queued/story")
		if p == nil || p.FinalURL != s.URL+"/queued/print" || p.DuplicateOf != "" || !strings.Contains(textOf(t, p), "told in full") {
			t.Fatalf("page under the canonical URL = %+v", p)
		}
		if got := s.hitsOf("/queued/story"); got != 0 {
			t.Errorf("canonical URL fetched %d times after its alias was recorded under it", got)
		}
		if sink.byURL(s.URL+"/queued/print") != nil {
			t.Error("alias recorded under its own URL too")
		}
		if more := sink.byURL(s.URL + "/queued/more"); more == nil || more.Parent != task.DigestString(s.URL+"/queued/story") {
			t.Errorf("link of the alias not followed, or its parent is not the canonical URL: %+v", more)
		}
		if res.Stats.PagesFetched != 3 || res.Stats.PagesNew != 3 || res.Stats.PagesDuplicate != 0 {
			t.Errorf("stats = %+v", res.Stats)
		}
	})
	t.Run("canonical marked seen", func(t *testing.T) {
		_, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/unseen/"}, MaxDepth: 2, Filters: filters})
		if p := sink.byURL(s.URL + "/unseen/story"); p == nil || p.FinalURL != s.URL+"/unseen/print" {
			t.Fatalf("page under the canonical URL = %+v", p)
		}
		if got := s.hitsOf("/unseen/story"); got != 0 {
			t.Errorf("canonical URL linked from its alias fetched %d times", got)
		}
	})
	t.Run("canonical already recorded: a duplicate", func(t *testing.T) {
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/dup/"}, MaxDepth: 2, Filters: filters})
		if p := sink.byURL(s.URL + "/dup/story"); p == nil || p.DuplicateOf != "" || p.FinalURL != "" || len(p.Text) == 0 {
			t.Fatalf("canonical page = %+v", p)
		}
		for _, alias := range []string{"/dup/print", "/dup/print2"} {
			p := sink.byURL(s.URL + alias)
			if p == nil || p.DuplicateOf != s.URL+"/dup/story" || len(p.Text) != 0 || p.Unchanged || p.Status != 200 {
				t.Errorf("alias %s = %+v", alias, p)
			}
		}
		// The duplicate's links hang below the page stored.
		if child := sink.byURL(s.URL + "/dup/child"); child == nil || child.Parent != task.DigestString(s.URL+"/dup/story") {
			t.Errorf("page linked from a duplicate = %+v", child)
		}
		if res.Stats.PagesFetched != 5 || res.Stats.PagesDuplicate != 2 || res.Stats.PagesNew != 3 {
			t.Errorf("stats = %+v", res.Stats)
		}
	})
	t.Run("canonical confirmed unchanged: a duplicate", func(t *testing.T) {
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/rc/"}, MaxDepth: 1, Filters: filters,
			Validators: []task.Validator{{URL: s.URL + "/rc/story", ETag: `"v"`, Depth: 1}}})
		if p := sink.byURL(s.URL + "/rc/story"); p == nil || p.Status != 304 || !p.Unchanged {
			t.Fatalf("canonical page = %+v", p)
		}
		if p := sink.byURL(s.URL + "/rc/print"); p == nil || p.DuplicateOf != s.URL+"/rc/story" || len(p.Text) != 0 {
			t.Errorf("alias = %+v", p)
		}
		if res.Stats.PagesDuplicate != 1 {
			t.Errorf("stats = %+v", res.Stats)
		}
	})
	t.Run("canonical ignored", func(t *testing.T) {
		for path, why := range map[string]string{
			"/ignored/host":    "on another host",
			"/ignored/robots":  "disallowed by robots.txt",
			"/ignored/filter":  "outside the task's filters",
			"/ignored/noindex": "declared by a noindex page",
			"/ignored/scheme":  "not http(s)",
			"/ignored/self":    "the page's own URL",
		} {
			_, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + path}, Filters: filters})
			p := sink.byURL(s.URL + path)
			if p == nil || p.FinalURL != "" || p.DuplicateOf != "" || len(sink.pages) != 1 {
				t.Errorf("canonical %s: pages %+v", why, sink.pages)
			}
		}
		if len(other.requests("")) != 0 {
			t.Errorf("the other host was contacted: %v", other.requests(""))
		}
	})
}
