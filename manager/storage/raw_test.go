package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/manager/storage/warciotest"
	"github.com/hivecrawl/hivecrawl/task"
)

// rawPage is page u with text and its raw response body html.
func rawPage(u, text, html string) *task.Page {
	p := page(u, text)
	p.Raw, p.RawCompression = textcodec.Encode([]byte(html))
	p.RawBytes = len(html)
	p.Header = map[string][]string{"Content-Type": {"text/html; charset=utf-8"}, "Last-Modified": {"Sun, 22 Nov 2026 10:00:00 GMT"}}
	return p
}

// TestRawResponseRecords uploads pages with their raw responses to a
// storage module that keeps them: each becomes a response record before
// its conversion record, linked both ways, which warcio reads with their
// HTTP status and payload digests; the CDXJ lists both records; Read
// still returns the text.
func TestRawResponseRecords(t *testing.T) {
	warcio := warciotest.Install(t)
	r := newRigWith(t, func(o *Options) { o.StoreRaw = true })
	up, _ := r.client(t)
	tk, env := r.issue(t, 1)
	var pages []*task.Page
	htmls := map[string]string{}
	for i := range 3 {
		u := fmt.Sprintf("http://site.example/raw%d", i)
		htmls[u] = fmt.Sprintf("<html><head><title>T%d</title></head><body><p>Page %d in full.</p></body></html>", i, i)
		pages = append(pages, rawPage(u, fmt.Sprintf("Page %d in full.", i), htmls[u]))
	}
	pages = append(pages, page("http://site.example/text-only", "Only the text of this one."))
	if _, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		rec, found, err := r.st.Read(context.Background(), p.URL, 0)
		if err != nil || !found || rec.Text != string(p.Text) {
			t.Fatalf("Read %s = %q, %v, %v", p.URL, rec.Text, found, err)
		}
	}
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	types, _ := warcRecords(t, r.dir) // strictly valid
	if fmt.Sprint(types) != "[warcinfo response conversion response conversion response conversion conversion]" {
		t.Fatalf("records %v", types)
	}

	files, _ := filepath.Glob(filepath.Join(WARCDir(r.dir), "*.warc.gz"))
	recs := warcio.Read(t, files...)
	responses := 0
	for i, rec := range recs {
		switch rec.Type {
		case "response":
			responses++
			if rec.Status != 200 || rec.Computed != rec.Payload || htmls[rec.Target] == "" {
				t.Errorf("warcio read response %+v", rec)
			}
			if i+1 >= len(recs) || recs[i+1].Type != "conversion" || recs[i+1].ID != rec.ConcurrentTo || recs[i+1].RefersTo != rec.ID || recs[i+1].Target != rec.Target {
				t.Errorf("response %s not linked to the conversion after it", rec.Target)
			}
		default:
			if rec.Declared != "" && rec.Declared != rec.Computed {
				t.Errorf("%s %s: declared %s, warcio computed %s", rec.Type, rec.Target, rec.Declared, rec.Computed)
			}
		}
	}
	if responses != 3 {
		t.Fatalf("warcio read %d response records, want 3", responses)
	}

	// The CDXJ lists both kinds, each line at its record.
	data, _ := os.ReadFile(files[0])
	cdxj, err := os.ReadFile(filepath.Join(WARCDir(r.dir), cdxjName(filepath.Base(files[0]))))
	if err != nil {
		t.Fatal(err)
	}
	lines := readCDXJ(t, cdxj)
	if len(lines) != 7 {
		t.Fatalf("%d CDXJ lines, want 7", len(lines))
	}
	for _, e := range lines {
		var off, n int64
		fmt.Sscan(e.Offset, &off)
		fmt.Sscan(e.Length, &n)
		raw, err := readMember(bytes.NewReader(data[off:off+n]), maxStoredRecord)
		if err != nil {
			t.Fatal(err)
		}
		head, err := readRecordHead(bytes.NewReader(raw))
		if err != nil || head.Target != e.URL || head.Digest != e.Digest {
			t.Fatalf("line %+v points at %+v (%v)", e, head, err)
		}
		want := "text/plain"
		if head.Type == "response" {
			want = "text/html"
			if !bytes.HasSuffix(raw, []byte(htmls[e.URL]+"\r\n\r\n")) {
				t.Errorf("response of %s does not end with its body", e.URL)
			}
		}
		if e.Mime != want || e.Status != "200" {
			t.Errorf("line %+v: want mime %s, status 200", e, want)
		}
	}
	// Indexed again from the file, the same lines.
	os.Remove(filepath.Join(WARCDir(r.dir), cdxjName(filepath.Base(files[0]))))
	if err := reindex(context.Background(), WARCDir(r.dir), filepath.Base(files[0]), quiet); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(WARCDir(r.dir), cdxjName(filepath.Base(files[0])))); !bytes.Equal(again, cdxj) {
		t.Fatalf("indexed again:\n%s\nwritten:\n%s", again, cdxj)
	}
}

// TestRawDropped: a storage module not asked to keep raw responses
// stores the text only.
func TestRawDropped(t *testing.T) {
	r := newRig(t)
	storePages(t, r, 1, []*task.Page{rawPage("http://site.example/a", "Text of a.", "<p>Text of a.</p>")})
	r.st.Close()
	if types, _ := warcRecords(t, r.dir); fmt.Sprint(types) != "[warcinfo conversion]" {
		t.Fatalf("records %v", types)
	}
}
