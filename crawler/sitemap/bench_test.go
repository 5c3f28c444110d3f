package sitemap

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParse reads a full sitemap: 50,000 URLs with <lastmod>.
func BenchmarkParse(b *testing.B) {
	var doc bytes.Buffer
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range MaxEntries {
		fmt.Fprintf(&doc, "<url><loc>https://www.example.com/articles/2024/%d-a-title-of-some-length.html</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod></url>\n", i)
	}
	doc.WriteString("</urlset>")
	b.SetBytes(int64(doc.Len()))
	b.ReportAllocs()
	for b.Loop() {
		sm, err := Parse(bytes.NewReader(doc.Bytes()), Options{})
		if err != nil || len(sm.Entries) != MaxEntries {
			b.Fatalf("%d entries, %v", len(sm.Entries), err)
		}
	}
}
