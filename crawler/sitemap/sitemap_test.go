package sitemap

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		doc       string
		kind      Kind
		locs      []string
		lastmod   []time.Time
		truncated bool
		err       error
	}{
		{
			name: "urlset",
			doc: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> http://a.example/one </loc><lastmod>2024-05-01T10:00:00+02:00</lastmod><priority>0.5</priority></url>
  <url><loc>http://a.example/two?x=1&amp;y=2</loc></url>
</urlset>`,
			kind:    URLSet,
			locs:    []string{"http://a.example/one", "http://a.example/two?x=1&y=2"},
			lastmod: []time.Time{day.Add(8 * time.Hour), {}},
		},
		{
			name: "index",
			doc: "\xEF\xBB\xBF <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">" +
				"<sitemap><loc>http://a.example/s1.xml</loc><lastmod>2024-05-01</lastmod></sitemap>" +
				"<sitemap><loc>http://a.example/s2.xml.gz</loc></sitemap></sitemapindex>",
			kind:    Index,
			locs:    []string{"http://a.example/s1.xml", "http://a.example/s2.xml.gz"},
			lastmod: []time.Time{day.Add(36 * time.Hour), {}},
		},
		{
			name: "extension elements are not pages",
			doc: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>http://a.example/p</loc><image:image><image:loc>http://a.example/i.jpg</image:loc></image:image><image:loc>http://a.example/j.jpg</image:loc></url></urlset>`,
			kind: URLSet,
			locs: []string{"http://a.example/p"},
		},
		{
			name: "prefixed sitemap namespace",
			doc:  `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.example/p</sm:loc></sm:url><url><loc>http://a.example/other</loc></url></sm:urlset>`,
			kind: URLSet,
			locs: []string{"http://a.example/p"},
		},
		{
			name: "raw ampersand and CDATA",
			doc:  `<urlset><url><loc>http://a.example/?a=1&b=2</loc></url><url><loc><![CDATA[http://a.example/c]]></loc></url></urlset>`,
			kind: URLSet,
			locs: []string{"http://a.example/?a=1&b=2", "http://a.example/c"},
		},
		{
			name: "empty and overlong locations are dropped",
			doc:  `<urlset><url><loc> </loc></url><url><loc>http://a.example/` + strings.Repeat("x", MaxLocBytes) + `</loc></url><url/><url><loc>http://a.example/ok</loc></url></urlset>`,
			kind: URLSet,
			locs: []string{"http://a.example/ok"},
		},
		{
			name:      "entries past the limit",
			doc:       `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url><loc>http://a.example/3</loc></url><url><loc>http://a.example/4</loc></url></urlset>`,
			kind:      URLSet,
			locs:      []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"},
			truncated: true,
		},
		{
			name: "cut short keeps what came before",
			doc:  `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.exa`,
			kind: URLSet,
			locs: []string{"http://a.example/1"},
			err:  ErrMalformed,
		},
		{
			name: "broken markup",
			doc:  `<urlset><url><loc>http://a.example/1</loc></url><url <<<`,
			kind: URLSet,
			locs: []string{"http://a.example/1"},
			err:  ErrMalformed,
		},
		{
			name: "giant tag",
			doc:  `<urlset><url><loc>http://a.example/1</loc></url><url` + strings.Repeat(` a=""`, MaxTagBytes/5+1) + `>`,
			kind: URLSet,
			locs: []string{"http://a.example/1"},
			err:  ErrMalformed,
		},
		{
			name: "html page",
			doc:  `<!doctype html><html><body><a href="http://a.example/">x</a></body></html>`,
			err:  ErrNotSitemap,
		},
		{
			name: "feed",
			doc:  `<?xml version="1.0"?><rss><channel><item><link>http://a.example/</link></item></channel></rss>`,
			err:  ErrNotSitemap,
		},
		{
			name: "text",
			doc:  "http://a.example/1\r\n\nnot a url\nHTTPS://a.example/2\nftp://a.example/3\nhttp://a.example/" + strings.Repeat("y", MaxLocBytes) + "\nhttp://a.example/4",
			kind: Text,
			locs: []string{"http://a.example/1", "HTTPS://a.example/2", "http://a.example/4"},
		},
		{
			name:      "text past the limit",
			doc:       "http://a.example/1\nhttp://a.example/2\nhttp://a.example/3\nhttp://a.example/4\n",
			kind:      Text,
			locs:      []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"},
			truncated: true,
		},
		{
			name: "binary",
			doc:  "\x1f\x8b\x08\x00garbage",
			err:  ErrNotSitemap,
		},
		{
			name: "empty",
			doc:  " \n ",
			err:  ErrNotSitemap,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := Parse(strings.NewReader(tc.doc), Options{MaxEntries: 3})
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if sm.Kind != tc.kind || sm.Truncated != tc.truncated {
				t.Fatalf("kind %v truncated %v, want %v %v", sm.Kind, sm.Truncated, tc.kind, tc.truncated)
			}
			var locs []string
			for _, e := range sm.Entries {
				locs = append(locs, e.Loc)
			}
			if fmt.Sprint(locs) != fmt.Sprint(tc.locs) {
				t.Fatalf("locs = %q, want %q", locs, tc.locs)
			}
			for i, want := range tc.lastmod {
				if got := sm.Entries[i].LastMod; !got.Equal(want) {
					t.Errorf("entry %d LastMod = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func TestParseLastMod(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2024-05-01T10:00:00Z", utc("2024-05-01T10:00:00Z")},
		{"2024-05-01T10:00:00.25+02:00", utc("2024-05-01T08:00:00.25Z")},
		{"2024-05-01T10:00Z", utc("2024-05-01T10:01:00Z")},
		{"2024-05-01T10:00:00", utc("2024-05-01T22:00:00Z")},
		{"2024-05-01T10:00", utc("2024-05-01T22:01:00Z")},
		{" 2024-05-01 ", utc("2024-05-02T12:00:00Z")},
		{"2024-12", utc("2025-01-01T12:00:00Z")},
		{"2024", utc("2025-01-01T12:00:00Z")},
		{"yesterday", time.Time{}},
		{"2024-13-01", time.Time{}},
		{"", time.Time{}},
	} {
		if got := parseLastMod(tc.in); !got.Equal(tc.want) {
			t.Errorf("parseLastMod(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// errReader yields its text, then err.
type errReader struct {
	text string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

// TestParseReaderError: the caller's cap (or a broken body) ends the parse
// with its own error and the entries read before it.
func TestParseReaderError(t *testing.T) {
	capErr := errors.New("over the cap")
	for _, doc := range []string{
		`<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.ex`,
		"http://a.example/1\nhttp://a.ex",
	} {
		sm, err := Parse(&errReader{text: doc, err: capErr}, Options{})
		if !errors.Is(err, capErr) {
			t.Fatalf("err = %v, want the reader's", err)
		}
		if len(sm.Entries) != 1 || sm.Entries[0].Loc != "http://a.example/1" {
			t.Fatalf("entries = %+v", sm.Entries)
		}
	}
}

// TestParseDeepNesting: a million nested elements cost no stack.
func TestParseDeepNesting(t *testing.T) {
	const n = 1 << 20
	doc := io.MultiReader(strings.NewReader("<urlset><url><loc>http://a.example/1</loc></url><url>"),
		strings.NewReader(strings.Repeat("<a>", n)), strings.NewReader(strings.Repeat("</a>", n)),
		strings.NewReader("<loc>http://a.example/2</loc></url></urlset>"))
	sm, err := Parse(doc, Options{})
	if err != nil || len(sm.Entries) != 2 {
		t.Fatalf("entries %+v, err %v", sm.Entries, err)
	}
}
