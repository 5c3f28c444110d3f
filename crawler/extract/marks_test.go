package extract

import (
	"strings"
	"testing"
)

// TestPermalinkMarksLeftOut: the marks documentation generators put beside
// headings are not text, on the tree path and on the token path; a mark
// in prose, and links with words, stay.
func TestPermalinkMarksLeftOut(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "sphinx", body: `<h2>Archiving operations<a class="headerlink" href="#archiving-operations" title="Permalink to this heading">¶</a></h2>`,
			want: "Archiving operations"},
		{name: "sphinx definition", body: `<dl><dt><em class="property">exception </em>shutil.SameFileError<a class="headerlink" href="#shutil.SameFileError">¶</a></dt><dd><p>Raised when the files are the same.</p></dd></dl>`,
			want: "exception shutil.SameFileError\nRaised when the files are the same."},
		{name: "rustdoc", body: `<h3 id="method.new"><a href="#method.new" class="anchor">§</a>pub fn new() -&gt; Self</h3>`,
			want: "pub fn new() -> Self"},
		{name: "hash with zero-width space", body: `<h2>Install <a class="hash-link" href="https://example.com/docs#install">#&#8203;</a></h2>`,
			want: "Install"},
		{name: "emoji", body: `<h2>Usage <a href="#usage" aria-hidden="true">🔗&#xFE0F;</a></h2>`, want: "Usage"},
		{name: "pilcrow in prose stays", body: `<p>See ¶ 12 of the contract.</p>`, want: "See ¶ 12 of the contract."},
		{name: "a mark linking elsewhere stays", body: `<p>Tag <a href="/tags/go">#</a></p>`, want: "Tag #"},
		{name: "a fragment link with words stays", body: `<p>See <a href="#intro">the introduction</a>.</p>`,
			want: "See the introduction."},
	}
	for _, tc := range tests {
		body := "<html><head><title>t</title></head><body>" + tc.body + "</body></html>"
		t.Run(tc.name+"/tree", func(t *testing.T) {
			doc := parseDoc(t, []byte(body))
			dropPermalinks(doc)
			if got := visibleText(doc); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
		t.Run(tc.name+"/tokens", func(t *testing.T) {
			_, got, err := scanTokens(strings.NewReader(body), mustURL(t, "http://example.com/"), "hivecrawl", 0, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
	}
}
