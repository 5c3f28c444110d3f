package urls

import "testing"

// benchLinks are links as pages write them, by the path they take.
var benchLinks = map[string][]string{
	// Same-site links the fast path answers.
	"fast": {
		"/section/news/", "/news/2024/related-1.html", "more-2.html",
		"/search?q=river&page=2", "?page=3", "http://example.com/a/b?c=d&e=f",
		"/wiki/Special:Random", "/shop/item;v=2",
	},
	// Links the full WHATWG parser resolves.
	"full": {
		"https://social.example/share?u=1", "../up.html", "/a%7eb",
		"/café", "//cdn.example/x.js", "/a#top",
	},
	// Links carrying tracking or session parameters.
	"tracking": {
		"/news/a.html?utm_source=feed&utm_medium=rss", "/p?id=7&fbclid=IwAR0abc",
		"/cart.jsp;jsessionid=0A1B2C3D4E5F?item=9", "https://other.example/?gclid=xyz&q=1",
	},
}

// BenchmarkResolve resolves a page's links against its URL.
func BenchmarkResolve(b *testing.B) {
	r, err := NewResolver(mustParse(b, "http://example.com/news/2024/river.html?x=1"))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"fast", "full", "tracking"} {
		links := benchLinks[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range links {
					if _, err := r.Resolve(l); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(links)), "ns/link")
		})
	}
}

// BenchmarkStripQuery checks queries without tracking parameters, the
// common case, against the rule list.
func BenchmarkStripQuery(b *testing.B) {
	qs := []string{"q=river&page=2", "page=3", "c=d&e=f", "id=7&category=books&sort=price"}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			stripQuery(q)
		}
	}
}
