package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/manager/storage/warciotest"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestWARCReadsWithWarcio stores two uploads and reads the WARC output with
// warcio (JavaScript): record counts, targets, block digests and the pages'
// content digests must match.
func TestWARCReadsWithWarcio(t *testing.T) {
	warcio := warciotest.Install(t)
	r := newRig(t)
	up, _ := r.client(t)
	want := map[string]string{}
	for round := 1; round <= 2; round++ {
		tk, env := r.issue(t, round)
		var pages []*task.Page
		for i := range 5 {
			u := fmt.Sprintf("http://site.example/r%d/p%d", round, i)
			text := fmt.Sprintf("round %d page %d: some extracted text ünïcødé", round, i)
			pages = append(pages, page(u, text))
			want[u] = fmt.Sprintf("%08x", uint32(task.DigestString(text)))
		}
		if _, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(WARCDir(r.dir), "*.warc.gz"))
	recs := warcio.Read(t, files...)
	conversions := 0
	for _, rec := range recs {
		if rec.Declared != "" && rec.Declared != rec.Computed {
			t.Errorf("%s %s: declared %s, warcio computed %s", rec.Type, rec.Target, rec.Declared, rec.Computed)
		}
		if rec.Type != "conversion" {
			continue
		}
		conversions++
		if want[rec.Target] != rec.Digest {
			t.Errorf("%s: digest %q, want %q", rec.Target, rec.Digest, want[rec.Target])
		}
	}
	if conversions != len(want) || len(recs) != len(want)+len(files) {
		t.Fatalf("warcio read %d records, %d conversions from %d files; want %d conversions", len(recs), conversions, len(files), len(want))
	}
}
