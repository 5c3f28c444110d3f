package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/hivecrawl/hivecrawl/proto/upload"
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
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
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
