package sitemap

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any document parses without panicking, within its limits, and
// an error is one of the documented kinds.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>http://a.example/1</loc><lastmod>2024-05-01</lastmod></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a.example/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte("http://a.example/1\nhttp://a.example/2\n"))
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><x:urlset xmlns:x="u"><x:url><x:loc>&amp;&foo;</x:loc></x:url>`))
	f.Add([]byte(`<urlset><url><loc><![CDATA[http://a]]></loc></url></urlset></extra>`))
	f.Add([]byte("\xEF\xBB\xBF<html>"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		const limit = 5
		sm, err := Parse(bytes.NewReader(doc), Options{MaxEntries: limit})
		if sm == nil {
			t.Fatal("nil sitemap")
		}
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotSitemap) {
			t.Fatalf("undocumented error %v", err)
		}
		if len(sm.Entries) > limit {
			t.Fatalf("%d entries past the limit of %d", len(sm.Entries), limit)
		}
		for _, e := range sm.Entries {
			if e.Loc == "" || len(e.Loc) > MaxLocBytes || strings.TrimSpace(e.Loc) != e.Loc {
				t.Fatalf("bad entry %q", e.Loc)
			}
		}
		if sm.Kind == Unknown && len(sm.Entries) > 0 {
			t.Fatal("entries without a kind")
		}
	})
}
