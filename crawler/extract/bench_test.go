package extract

import (
	"net/url"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/cputime"
)

func benchmarkParse(b *testing.B, opts Options) {
	body := readFixture(b, "article.html")
	u, err := url.Parse("http://example.com/news/2024/river.html")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := Parse(body, "text/html; charset=utf-8", u, opts); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per page (including garbage collection) says more than
	// ns/op on a machine shared with other work.
	if used := cputime.Process() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkParse measures one ~10 KB article page: links, title and robots
// only, and with main-text extraction.
func BenchmarkParse(b *testing.B) {
	b.Run("links", func(b *testing.B) { benchmarkParse(b, Options{}) })
	b.Run("text", func(b *testing.B) { benchmarkParse(b, Options{Text: true}) })
}
