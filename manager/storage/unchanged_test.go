package storage

import (
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestUnchangedWithoutDigestKeepsStored: a page reported unchanged without
// a body to digest, a 304 or a page its sitemap dated before the stored
// copy (status 0: no request), stays known with the digest stored for it.
func TestUnchangedWithoutDigestKeepsStored(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	first := site()
	if rc, _ := r.upload(t, tk.ID, env, first); rc.PagesAccepted != len(first) {
		t.Fatalf("first round: %+v", rc)
	}
	tk2, env2 := r.issue(t, 2)
	again := []*task.Page{
		{URL: first[0].URL, Status: 304, FetchedAt: t0, ETag: first[0].ETag, Unchanged: true},
		{URL: first[1].URL, FetchedAt: t0, ETag: first[1].ETag, Unchanged: true},
	}
	if rc, _ := r.upload(t, tk2.ID, env2, again); rc.PagesAccepted != 2 || rc.PagesNew+rc.PagesChanged != 0 {
		t.Fatalf("second round: %+v", rc)
	}
	c, err := r.db.Get(r.channel)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range first[:2] {
		if got := c.Pages[p.URL].Digest; got != p.Digest {
			t.Errorf("%s digest = %v, want the stored %v", p.URL, got, p.Digest)
		}
	}
}
