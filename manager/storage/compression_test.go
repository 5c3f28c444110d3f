package storage

import (
	"context"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestUploadCompressions: storage keeps the text of uploads from clients
// before the text dictionary (plain zstd), from current ones (zstd with
// dictionary text-1) and uncompressed, and refuses an unknown one.
func TestUploadCompressions(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	plain, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"http://site.example/old":  "Text uploaded by a client from before the dictionary.",
		"http://site.example/new":  "Text uploaded by a current client, with the text dictionary.",
		"http://site.example/none": "Text uploaded without compression.",
		"http://site.example/odd":  "Text in a compression nobody knows.",
	}
	old := page("http://site.example/old", texts["http://site.example/old"])
	old.Text, old.Compression = plain.EncodeAll(old.Text, nil), textcodec.Zstd
	cur := page("http://site.example/new", texts["http://site.example/new"])
	cur.Text, cur.Compression = textcodec.Encode(cur.Text)
	none := page("http://site.example/none", texts["http://site.example/none"])
	odd := page("http://site.example/odd", texts["http://site.example/odd"])
	odd.Compression = "brotli"
	raw, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{old, cur, none, odd}, nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil || rc.PagesAccepted != 3 {
		t.Fatalf("receipt %+v, %v; want 3 pages accepted", rc, err)
	}
	for u, want := range texts {
		rec, found, err := r.st.Read(context.Background(), u, 0)
		if err != nil {
			t.Fatal(err)
		}
		if u == "http://site.example/odd" {
			if found {
				t.Errorf("stored a page in an unknown compression")
			}
			continue
		}
		if rec.Text != want {
			t.Errorf("%s stored as %q, want %q", u, rec.Text, want)
		}
	}
}
