package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestReadReturnsTheLatestText(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	up, _ := r.client(t)
	long := strings.Repeat("é", 50) // 100 bytes
	tk, env := r.issue(t, 1)
	pages := []*task.Page{page("http://site.example/", "first text"), page("http://site.example/long", long)}
	if _, err := up.Upload(ctx, delivery(t, tk.ID, env, pages, nil)); err != nil {
		t.Fatal(err)
	}
	tk, env = r.issue(t, 2)
	if _, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "second text")}, nil)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url string
		limit     int64
		found     bool
		text      string
		truncated bool
	}{
		{"latest of two versions", "http://site.example/", 0, true, "second text", false},
		{"whole text under the limit", "http://site.example/long", 100, true, long, false},
		{"cut inside a character", "http://site.example/long", 7, true, strings.Repeat("é", 3), true},
		{"never stored", "http://site.example/nothing", 0, false, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, found, err := r.st.Read(context.Background(), tc.url, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.found || rec.Text != tc.text || rec.Truncated != tc.truncated {
				t.Fatalf("Read(%s, %d) = %q truncated %v found %v; want %q, %v, %v", tc.url, tc.limit, rec.Text, rec.Truncated, found, tc.text, tc.truncated, tc.found)
			}
			if found && (rec.Target != tc.url || rec.Title != "T "+tc.url || rec.File == "" || rec.Date.IsZero()) {
				t.Errorf("record %+v", rec)
			}
		})
	}
	es, err := r.st.LookupAll([]string{"http://site.example/", "http://site.example/long", "http://site.example/nothing"})
	if err != nil || len(es) != 2 {
		t.Fatalf("LookupAll: %v, %v", es, err)
	}
}

// TestContentSignalsStored: a stored page's content signals are in its
// WARC record; a page the site refused is kept without text, whatever
// text it came with.
func TestContentSignalsStored(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	up, _ := r.client(t)
	tk, env := r.issue(t, 1)
	open := page("http://site.example/", "searchable text")
	open.Signals = "ai-train=n, search=y"
	refused := page("http://site.example/no", "text the site refused")
	refused.Refused, refused.Signals = "Content-Usage header: search=n", "search=n"
	if _, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{open, refused}, nil)); err != nil {
		t.Fatal(err)
	}
	rec, found, err := r.st.Read(ctx, open.URL, 0)
	if err != nil || !found || rec.Signals != open.Signals || rec.Text != "searchable text" {
		t.Fatalf("Read(%s) = %+v, %v, %v; want its text and signals %q", open.URL, rec, found, err, open.Signals)
	}
	if rec, found, err := r.st.Read(ctx, refused.URL, 0); err != nil || found {
		t.Fatalf("Read(%s) = %q, %v, %v; want nothing stored", refused.URL, rec.Text, found, err)
	}
}

func TestReadReceipts(t *testing.T) {
	r := newRigOn(t, false, nil) // ReadReceipts reads a stopped module's bbolt file

	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	raw, err := up.Upload(context.Background(), delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "home page text")}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	if got, found, err := r.st.Receipt(tk.ID); err != nil || !found || got != want {
		t.Fatalf("Receipt = %+v, %v, %v; want %+v", got, found, err, want)
	}
	if _, found, err := r.st.Receipt("site.example/9/0"); err != nil || found {
		t.Fatalf("Receipt of a task never stored: found %v, %v", found, err)
	}
	ids := []string{tk.ID, "site.example/9/0"}
	if _, err := ReadReceipts(r.dir, r.key.GetPublic(), ids); err == nil {
		t.Fatal("read the index of a running storage module")
	}
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReceipts(r.dir, r.key.GetPublic(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[tk.ID] != want {
		t.Fatalf("receipts %+v, want only %+v", got, want)
	}
	other, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReceipts(r.dir, other.GetPublic(), ids); err == nil {
		t.Fatal("receipts verified with another key")
	}
}
