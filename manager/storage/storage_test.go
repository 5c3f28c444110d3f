package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestUploadEarnsVerifiableReceipt(t *testing.T) {
	t.Run("bbolt", func(t *testing.T) { testUploadEarnsVerifiableReceipt(t, newRigOn(t, false, nil)) })
	t.Run("postgres", func(t *testing.T) { testUploadEarnsVerifiableReceipt(t, newRigOn(t, true, nil)) })
}

func testUploadEarnsVerifiableReceipt(t *testing.T, r *rig) {
	ctx := context.Background()
	tk, env := r.issue(t, 1)
	up, h := r.client(t)
	pages := []*task.Page{
		page("http://site.example/", "home page text"),
		page("http://site.example/a", "article a text"),
		page("http://elsewhere.example/x", "not this task's host"),
	}
	raw, err := up.Upload(ctx, delivery(t, tk.ID, env, pages, []string{"http://new.example/"}))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	wantBytes := int64(len("home page text") + len("article a text"))
	if rc.Peer != h.ID().String() || rc.TaskID != tk.ID || rc.PagesNew != 2 || rc.PagesAccepted != 2 ||
		rc.Bytes != wantBytes || rc.Credits != Credits(2, 0, 0, wantBytes) || rc.Credits < 2 {
		t.Fatalf("receipt %+v", rc)
	}
	// Feedback reached the channel database: result recorded, new channel.
	c, err := r.db.Get(r.channel)
	if err != nil || c.Updates != 1 || len(c.Pages) != 2 || c.Pending != 0 {
		t.Fatalf("channel after upload: %+v, %v", c, err)
	}
	if _, err := r.db.Get("new.example"); err != nil {
		t.Fatalf("inter-site URL made no channel: %v", err)
	}
	// The same peer repeating the upload gets the same receipt, earning once.
	again, err := up.Upload(ctx, delivery(t, tk.ID, env, pages, nil))
	if err != nil || string(again) != string(raw) {
		t.Fatalf("repeat: %v, same receipt %v", err, string(again) == string(raw))
	}
	// Another peer's result for the same task earns nothing.
	other, _ := r.client(t)
	dup, err := other.Upload(ctx, delivery(t, tk.ID, env, pages, nil))
	if err != nil {
		t.Fatal(err)
	}
	drc, err := upload.VerifyReceipt(dup, r.key.GetPublic())
	if err != nil || drc.Credits != 0 || drc.PagesAccepted != 0 {
		t.Fatalf("duplicate receipt %+v, %v", drc, err)
	}
	tot, err := r.st.Totals()
	if err != nil || tot.Uploads != 1 || tot.Duplicates != 1 || tot.Records != 2 || tot.Pages != 2 {
		t.Fatalf("totals %+v, %v", tot, err)
	}
	cs, err := r.st.Contributors()
	if err != nil || len(cs) != 1 || cs[0].Credits != rc.Credits || cs[0].Nickname != up.Nickname {
		t.Fatalf("contributors %+v, %v", cs, err)
	}
	// WARC: warcinfo and two conversion records, strictly valid.
	types, targets := warcRecords(t, r.dir)
	if len(types) != 3 || types[1] != "conversion" || targets[2] != "http://site.example/a" {
		t.Fatalf("WARC records %v %v", types, targets)
	}
	// The index points at the record.
	e, ok, err := r.st.Lookup("http://site.example/a")
	if err != nil || !ok {
		t.Fatalf("lookup: %v %v", ok, err)
	}
	f, err := os.Open(filepath.Join(WARCDir(r.dir), e.File))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(e.Offset, 0); err != nil {
		t.Fatal(err)
	}
	rd, err := gowarc.NewWarcFileReaderFromStream(f, e.Offset)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _, err := rd.Next()
	if err != nil || rec.WarcHeader().Get(gowarc.WarcTargetURI) != "http://site.example/a" {
		t.Fatalf("record at index offset: %v", err)
	}
}

func TestChangedAndUnchangedPages(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	up, _ := r.client(t)
	tk, env := r.issue(t, 1)
	if _, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "v1"), page("http://site.example/b", "b1")}, nil)); err != nil {
		t.Fatal(err)
	}
	r.clock = r.clock.Add(time.Hour)
	tk, env = r.issue(t, 2)
	if len(tk.KnownPages) != 2 {
		t.Fatalf("second task knows %d pages", len(tk.KnownPages))
	}
	unchanged := page("http://site.example/b", "b1")
	unchanged.Text, unchanged.Unchanged = nil, true
	changed := page("http://site.example/", "v2")
	changed.FetchedAt, unchanged.FetchedAt = r.clock, r.clock // fetched for this round
	raw, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{changed, unchanged}, nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil || rc.PagesChanged != 1 || rc.PagesNew != 0 || rc.PagesAccepted != 2 || rc.Credits != Credits(0, 1, 1, 2) {
		t.Fatalf("receipt %+v, %v", rc, err)
	}
	c, _ := r.db.Get(r.channel)
	if c.Estimate.Observations != 2 || c.Estimate.Changes != 1 {
		t.Fatalf("change estimate %+v", c.Estimate)
	}
}

func TestRefusedUploads(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tk, env := r.issue(t, 1)
	other, _, _ := crypto.GenerateEd25519Key(nil)
	forged, err := envelope.Seal(tk, other)
	if err != nil {
		t.Fatal(err)
	}
	bare, _ := tk.Encode()
	altered := append([]byte(nil), env...)
	altered[len(altered)-1] ^= 1
	never := *tk
	never.ID = "site.example/99/0"
	neverEnv, err := envelope.Seal(&never, r.key)
	if err != nil {
		t.Fatal(err)
	}
	up, _ := r.client(t)
	pages := []*task.Page{page("http://site.example/", "text")}
	tests := []struct {
		name string
		env  []byte
	}{
		{"forged task", forged},
		{"unsigned task", bare},
		{"altered task", altered},
		{"task never issued", neverEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := up.Upload(ctx, delivery(t, tk.ID, tt.env, pages, nil))
			if !errors.Is(err, upload.ErrRefused) || rc != nil {
				t.Fatalf("Upload = %d bytes, %v; want upload.ErrRefused", len(rc), err)
			}
		})
	}
	tot, _ := r.st.Totals()
	cs, _ := r.st.Contributors()
	if tot.Refused != len(tests) || tot.Uploads != 0 || len(cs) != 0 {
		t.Fatalf("totals %+v, contributors %v", tot, cs)
	}
	if c, _ := r.db.Get(r.channel); c.Updates != 0 {
		t.Fatal("a refused upload reached the channel")
	}
}

func TestLateResultEarnsNothing(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	if _, err := r.db.Expire(r.clock.Add(2*time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	up, _ := r.client(t)
	raw, err := up.Upload(context.Background(), delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "x")}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := upload.VerifyReceipt(raw, r.key.GetPublic()); err != nil || rc.Credits != 0 {
		t.Fatalf("late receipt %+v, %v", rc, err)
	}
}

func TestCredits(t *testing.T) {
	tests := []struct {
		name                     string
		newP, changed, unchanged int
		bytes                    int64
		want                     float64
	}{
		{"nothing", 0, 0, 0, 0, 0},
		{"new and changed", 3, 2, 0, 0, 5},
		{"unchanged only", 0, 0, 10, 0, 1},
		{"bytes", 0, 0, 0, 2 << 20, 1},
		{"rounded", 0, 0, 1, 1000, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Credits(tt.newP, tt.changed, tt.unchanged, tt.bytes); got != tt.want {
				t.Fatalf("Credits = %v, want %v", got, tt.want)
			}
		})
	}
}

var _ Tasks = dbTasks{}
