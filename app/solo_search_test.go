package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/testkit/pydoctest"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestSoloSearchFindsSphinxWords crawls python3-doc's library/shutil.html
// from a loopback site in solo mode and searches for a word its inline
// markup once glued to the next ("SameFileErroris raised"): the search
// finds the page, and neither its text nor its snippet holds the
// permalink marks ("¶") of its headings.
func TestSoloSearchFindsSphinxWords(t *testing.T) {
	page := pydoctest.Page(t, "library/shutil.html")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/library/shutil.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	t.Cleanup(srv.Close)
	c, ctx := startSolo(t, true)
	url := srv.URL + "/library/shutil.html"
	if _, err := c.AddSeeds(ctx, []string{url}); err != nil {
		t.Fatal(err)
	}
	var found localapi.SearchResults
	eventually(t, "the page indexed for search", func() bool {
		var err error
		found, err = c.SoloSearch(ctx, "SameFileError", 10)
		return err == nil && found.Total > 0
	})
	if found.Total != 1 || found.Hits[0].URL != url {
		t.Fatalf("search SameFileError: %+v, want %s", found, url)
	}
	var snippet strings.Builder
	for _, s := range found.Hits[0].Snippet {
		snippet.WriteString(s.Text)
	}
	if strings.Contains(snippet.String(), "¶") || !strings.Contains(snippet.String(), "SameFileError") {
		t.Errorf("snippet %q: want SameFileError and no ¶", snippet.String())
	}
	// The page's record is readable once the storage module has
	// committed it, which may come after the search index has it.
	var txt localapi.SoloText
	eventually(t, "the page's text stored", func() bool {
		var err error
		txt, err = c.SoloText(ctx, url)
		return err == nil
	})
	const sentence = "If src and dst specify the same file, SameFileError is raised."
	if !strings.Contains(txt.Text, sentence) || strings.Contains(txt.Text, "¶") {
		t.Errorf("stored text: want %q and no ¶", sentence)
	}
	phrase, err := c.SoloSearch(ctx, `"SameFileError is raised"`, 10)
	if err != nil || phrase.Total != 1 {
		t.Errorf("search for the phrase: %+v, %v", phrase, err)
	}
}
