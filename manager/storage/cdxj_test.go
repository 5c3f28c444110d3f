package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestSURT(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/", "com,example)/"},
		{"http://www.Example.com", "com,example)/"},
		{"https://www2.example.com/A/B/?b=2&a=1", "com,example)/a/b?a=1&b=2"},
		{"http://example.com:8080/x?", "com,example:8080)/x"},
		{"https://example.com:443/x", "com,example)/x"},
		{"http://user:pw@example.com/x#frag", "com,example)/x"},
		{"http://news.bbc.co.uk/story", "uk,co,bbc,news)/story"},
		{"http://192.168.0.1/a", "1,0,168,192)/a"},
		{"http://[2001:db8::1]/a", "[2001:db8::1])/a"},
		{"http://www.example/", "example)/"},
		{"http://www/", "www)/"},
		{"http://example.com/%C3%A4", "com,example)/%c3%a4"},
		{"not a url", "not a url"},
	}
	for _, tc := range tests {
		if got := surt(tc.in); got != tc.want {
			t.Errorf("surt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCDXJLine checks a line against the form cdxj-indexer writes.
func TestCDXJLine(t *testing.T) {
	info := export.RecordInfo{Type: "conversion", Target: "http://www.example.com/ä?b=1&a=<2>",
		Date: time.Date(2026, 11, 22, 12, 30, 45, 123, time.FixedZone("CET", 3600)),
		Mime: "text/plain; charset=utf-8", Status: 200, Digest: "sha1:ABCD", Offset: 1024, Length: 512}
	got := string(cdxjLine(info, "f.warc.gz"))
	want := `com,example)/%c3%a4?a=<2>&b=1 20261122113045 {"url": "http://www.example.com/\u00e4?b=1&a=<2>", "mime": "text/plain", "status": "200", "digest": "sha1:ABCD", "length": "512", "offset": "1024", "filename": "f.warc.gz"}` + "\n"
	if got != want {
		t.Errorf("line\n%s want\n%s", got, want)
	}
	info = export.RecordInfo{Type: "response", Target: "http://example.com/\U0001F600", Date: info.Date, Offset: 0, Length: 9}
	got = string(cdxjLine(info, "f.warc.gz"))
	want = `com,example)/%f0%9f%98%80 20261122113045 {"url": "http://example.com/\ud83d\ude00", "length": "9", "offset": "0", "filename": "f.warc.gz"}` + "\n"
	if got != want {
		t.Errorf("line without mime, status and digest\n%s want\n%s", got, want)
	}
}

// cdxjEntry is one parsed CDXJ line.
type cdxjEntry struct {
	Key, Time string
	URL       string `json:"url"`
	Mime      string `json:"mime"`
	Status    string `json:"status"`
	Digest    string `json:"digest"`
	Length    string `json:"length"`
	Offset    string `json:"offset"`
	Filename  string `json:"filename"`
}

func readCDXJ(t *testing.T, b []byte) []cdxjEntry {
	t.Helper()
	var out []cdxjEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, rest, _ := strings.Cut(sc.Text(), " ")
		ts, block, _ := strings.Cut(rest, " ")
		var e cdxjEntry
		if err := json.Unmarshal([]byte(block), &e); err != nil {
			t.Fatalf("CDXJ line %q: %v", sc.Text(), err)
		}
		e.Key, e.Time = key, ts
		out = append(out, e)
	}
	return out
}

// checkCDXJ checks that the CDXJ lines of WARC file data (named name)
// name the conversion records of the pages of want (target → text) at
// their offsets and lengths, and returns the targets listed.
func checkCDXJ(t *testing.T, name string, data, cdxj []byte, want map[string]string) []string {
	t.Helper()
	var targets []string
	for _, e := range readCDXJ(t, cdxj) {
		off, err1 := strconv.ParseInt(e.Offset, 10, 64)
		n, err2 := strconv.ParseInt(e.Length, 10, 64)
		if err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > int64(len(data)) {
			t.Fatalf("%s: line %+v outside the file of %d bytes", name, e, len(data))
		}
		if e.Filename != name || e.Key != surt(e.URL) || len(e.Time) != 14 || e.Mime != "text/plain" || e.Status != "200" || !strings.HasPrefix(e.Digest, "sha1:") {
			t.Errorf("%s: line %+v", name, e)
		}
		// The member at offset, alone, is the record.
		raw, err := readMember(bytes.NewReader(data[off:off+n]), maxStoredRecord)
		if err != nil {
			t.Fatalf("%s: member at %d: %v", name, off, err)
		}
		head, err := readRecordHead(bytes.NewReader(raw))
		if err != nil || head.Type != "conversion" || head.Target != e.URL || head.Digest != e.Digest {
			t.Fatalf("%s: record at %d is %+v (%v); line %+v", name, off, head, err, e)
		}
		if text, ok := want[e.URL]; !ok || !bytes.HasSuffix(raw, []byte(text+"\r\n\r\n")) {
			t.Errorf("%s: record of %s at %d does not hold its text", name, e.URL, off)
		}
		targets = append(targets, e.URL)
	}
	return targets
}

// storePages issues the channel's next round and stores pages as its
// result from peer "peer-1".
func storePages(t *testing.T, r *rig, round int, pages []*task.Page) {
	t.Helper()
	tk, env := r.issue(t, round)
	h := &upload.Header{Task: env, Result: task.Result{TaskID: tk.ID, Stats: task.Stats{PagesFetched: len(pages)}}, Pages: len(pages)}
	if _, err := r.st.Accept(context.Background(), "peer-1", h, pages); err != nil {
		t.Fatal(err)
	}
}

// textPages returns n pages of round with their texts by URL.
func textPages(round, n int) ([]*task.Page, map[string]string) {
	var pages []*task.Page
	texts := map[string]string{}
	for i := range n {
		u := "http://site.example/r" + strconv.Itoa(round) + "/p" + strconv.Itoa(i)
		text := strings.Repeat("Round "+strconv.Itoa(round)+", page "+strconv.Itoa(i)+" of the extracted text. ", 3+i%4)
		pages = append(pages, page(u, text))
		texts[u] = text
	}
	return pages, texts
}

// storeRounds stores rounds 1 to rounds of n text pages each and returns
// the texts by URL.
func storeRounds(t *testing.T, r *rig, rounds, n int) map[string]string {
	t.Helper()
	want := map[string]string{}
	for round := 1; round <= rounds; round++ {
		pages, texts := textPages(round, n)
		storePages(t, r, round, pages)
		maps.Copy(want, texts)
	}
	return want
}

// readsBack checks that every page of want reads back with its text;
// when says when, for the failure.
func (r *rig) readsBack(t *testing.T, want map[string]string, when string) {
	t.Helper()
	for u, text := range want {
		rec, found, err := r.st.Read(context.Background(), u, 0)
		if err != nil || !found || rec.Text != text {
			t.Fatalf("Read %s %s = %q, %v, %v", u, when, rec.Text, found, err)
		}
	}
}

// TestLocalCDXJ stores pages in the local folder with files rolled small:
// every closed file has its CDXJ beside it, whose lines point at the
// records, and indexing the file again from its records (as after a
// crash) gives the same lines.
func TestLocalCDXJ(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.MaxFileSize = 1500 })
	want := storeRounds(t, r, 3, 6)
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	dir := WARCDir(r.dir)
	names, err := warcFiles(dir)
	if err != nil || len(names) < 3 {
		t.Fatalf("%d WARC files (%v); want the files rolled", len(names), err)
	}
	seen := map[string]int{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		cdxj, err := os.ReadFile(filepath.Join(dir, cdxjName(name)))
		if err != nil {
			t.Fatalf("no CDXJ beside %s: %v", name, err)
		}
		for _, u := range checkCDXJ(t, name, data, cdxj, want) {
			seen[u]++
		}
		// Made again from the file, the index is the same.
		if err := os.Remove(filepath.Join(dir, cdxjName(name))); err != nil {
			t.Fatal(err)
		}
		if err := reindex(context.Background(), dir, name, quiet); err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(filepath.Join(dir, cdxjName(name)))
		if err != nil || !bytes.Equal(again, cdxj) {
			t.Fatalf("%s indexed again:\n%s\nwritten:\n%s", name, again, cdxj)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("CDXJ lists %d pages, want %d", len(seen), len(want))
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", u, n)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "*.part")); len(parts) != 0 {
		t.Errorf("left behind: %v", parts)
	}
}
