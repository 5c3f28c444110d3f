package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestPagesUnderTheirCanonicalURL(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	// The crawler fetched /print, which names /story canonical, then
	// /print2, which names it too.
	story := page("http://site.example/story", "the story")
	story.FinalURL = "http://site.example/print"
	dup := page("http://site.example/print2", "")
	dup.Text, dup.TextBytes, dup.DuplicateOf = nil, 0, "http://site.example/story"
	raw, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{story, dup}, nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := VerifyReceipt(raw, r.key.GetPublic())
	if err != nil || rc.PagesNew != 1 || rc.PagesAccepted != 1 {
		t.Fatalf("receipt %+v, %v", rc, err)
	}
	if _, ok, err := r.st.Lookup("http://site.example/story"); err != nil || !ok {
		t.Errorf("canonical URL not indexed: %v %v", ok, err)
	}
	if _, ok, err := r.st.Lookup("http://site.example/print2"); err != nil || ok {
		t.Errorf("duplicate indexed: %v %v", ok, err)
	}
	// The record says where its text came from.
	if _, targets := warcRecords(t, r.dir); fmt.Sprint(targets[1:]) != "[http://site.example/print]" {
		t.Errorf("WARC targets %v", targets)
	}
}

func TestDecodePageChecksDuplicateOf(t *testing.T) {
	for _, tc := range []struct {
		name, dup string
		ok        bool
	}{
		{name: "absent", ok: true},
		{name: "http", dup: "http://a.example/story", ok: true},
		{name: "not http", dup: "javascript:alert(1)"},
		{name: "relative", dup: "/story"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fmt.Appendf(nil, `{"url":"http://a.example/x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"out_links":0,"duplicate_of":%q}`, tc.dup)
			_, err := DecodePage(b)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrMalformed)) {
				t.Errorf("DecodePage with duplicate_of %q: %v", tc.dup, err)
			}
		})
	}
}
