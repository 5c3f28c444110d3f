package extract

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCutRuns: a run of text longer than softRun is cut after the first
// whitespace past it, one without whitespace at hardRun, a run that
// reaches a '<' first is not cut, and the bytes come through in order
// whatever the reads' sizes.
func TestCutRuns(t *testing.T) {
	words := strings.Repeat("word ", softRun/5+10) // a little over softRun
	tests := []struct {
		name, in string
		cuts     int
	}{
		{"short", "<p>" + strings.Repeat("word ", 100) + "</p>", 0},
		{"long run, cut at a space", "<p>" + words + "</p>", 1},
		{"two long runs", "<p>" + words + "</p><p>" + words + "</p>", 2},
		{"no whitespace", "<p>" + strings.Repeat("x", hardRun+10) + "</p>", 1},
		{"tags keep runs short", strings.Repeat("<b>"+strings.Repeat("w ", 1000)+"</b>", 100), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{cutRuns(strings.NewReader(tt.in)), cutRuns(iotest.OneByteReader(strings.NewReader(tt.in)))} {
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if n := bytes.Count(got, []byte(cutMark)); n != tt.cuts {
					t.Fatalf("%d cuts, want %d", n, tt.cuts)
				}
				if string(bytes.ReplaceAll(got, []byte(cutMark), nil)) != tt.in {
					t.Fatal("the bytes came through changed")
				}
				for _, part := range bytes.Split(got, []byte(cutMark))[:tt.cuts] {
					if !isSpace(part[len(part)-1]) && len(part) < hardRun {
						t.Fatalf("a cut after %q, not after whitespace", part[len(part)-10:])
					}
				}
			}
		})
	}
}

// TestCutRunsKeepWords: a page whose paragraph is one run of 300 KiB, cut
// into several, gives every word of it once, apart, in order, and no
// trace of the cuts, on the tree's path and the streamed one.
func TestCutRunsKeepWords(t *testing.T) {
	var para strings.Builder
	var want []string
	for i := 0; para.Len() < 300<<10; i++ {
		w := fmt.Sprintf("w%d", i)
		want = append(want, w)
		para.WriteString(w + " ")
	}
	u, _ := url.Parse("http://example.com/")
	tree := "<!doctype html><html><head><title>t</title></head><body><p>" + para.String() + "</p></body></html>"
	// Over MaxTreeTokens start tags: streamed.
	streamed := "<!doctype html><html><body>" + strings.Repeat("<i>", MaxTreeTokens) + "<p>" + para.String() + "</p></body></html>"
	for name, page := range map[string]string{"tree": tree, "streamed": streamed} {
		t.Run(name, func(t *testing.T) {
			p, err := Parse([]byte(page), "text/html", u, Options{Text: true})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(p.Text, "<!--") || strings.Contains(p.Text, "-->") {
				t.Fatal("the cut shows in the text")
			}
			got := strings.Fields(p.Text)
			if len(got) != len(want) {
				t.Fatalf("%d words, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("word %d is %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}
