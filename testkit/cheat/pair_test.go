package cheat

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/crawlertest"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

// recorder is the honest uploader under a cheater: it keeps the pages
// of each delivery.
type recorder struct{ got map[string][]*task.Page }

func (r *recorder) Upload(_ context.Context, d taskmgr.Delivery) ([]byte, error) {
	var pages []*task.Page
	if err := crawler.ReadSpool(d.Spool, func(p *task.Page) error { pages = append(pages, p); return nil }); err != nil {
		return nil, err
	}
	r.got[d.TaskID] = pages
	return []byte("receipt"), nil
}

// delivery seals t with key and spools pages as its crawl.
func delivery(t *testing.T, tk *task.Task, key crypto.PrivKey, pages []*task.Page) taskmgr.Delivery {
	t.Helper()
	raw, err := envelope.Seal(tk, key)
	if err != nil {
		t.Fatal(err)
	}
	return taskmgr.Delivery{TaskID: tk.ID, Channel: tk.Channel, Raw: raw, Spool: crawlertest.Spool(t, pages), Result: &task.Result{TaskID: tk.ID}}
}

// TestSybilConfirmsTwin: a sybil alters its own result, as alter mode
// does, and shares the forged pages with its twin; the twin, drawn to
// spot-check that result, uploads the forged pages of the sample instead
// of the pages it fetched, and logs the confirmation. It checks anyone
// else's result honestly, and its own twin's pages are not its to
// confirm.
func TestSybilConfirmsTwin(t *testing.T) {
	ctx := context.Background()
	key, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pair := t.TempDir()
	rec := &recorder{got: map[string][]*task.Page{}}
	sybil := func(name string) *Uploader {
		return &Uploader{Mode: adversary.Sybil, Honest: rec, Dir: t.TempDir(), Manager: pub, Pair: pair, Self: name}
	}
	a, b := sybil("a"), sybil("b")
	now := time.Now()
	lease := task.Lease{Host: "site.example", Epoch: 1, Expires: now.Add(time.Hour)}
	crawled := crawl(12)
	own := &task.Task{ID: "site.example/1/0", Channel: "site.example", Seeds: []string{"http://site.example/"}, Issued: now, Lease: lease}
	if _, err := a.Upload(ctx, delivery(t, own, key, crawled)); err != nil {
		t.Fatal(err)
	}
	uploaded := rec.got[own.ID]
	if len(uploaded) != 12 || len(falsePages(uploaded, crawled)) != 12 || string(uploaded[3].Text) == string(crawled[3].Text) {
		t.Fatalf("the sybil's own result: %d pages uploaded, want 12 altered", len(uploaded))
	}
	forged, err := adversary.ReadLog(a.Dir)
	if err != nil || len(forged) != 12 {
		t.Fatalf("forged log %d pages, %v; want 12", len(forged), err)
	}

	sample := []string{crawled[1].URL, crawled[3].URL, crawled[7].URL}
	check := func(id string) *task.Task {
		return &task.Task{ID: id, Channel: "site.example", Seeds: sample, MaxPages: len(sample), Issued: now.Add(time.Minute), Lease: task.Lease{Host: "site.example", Epoch: 2, Expires: now.Add(time.Hour)}}
	}
	// The twin's fetch of the sample: the pages as the web serves them,
	// one of them missing (cut short).
	fetched := []*task.Page{crawled[1], crawled[7]}
	tests := []struct {
		name    string
		by      *Uploader
		id      string
		confirm bool
	}{
		{"the twin's check", b, "check/aaaa/1", true},
		{"its own result's check", a, "check/aaaa/2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.by.Upload(ctx, delivery(t, check(tt.id), key, fetched)); err != nil {
				t.Fatal(err)
			}
			got := rec.got[tt.id]
			cs, err := adversary.ReadConfirmations(tt.by.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.confirm {
				if len(got) != 2 || got[0].Digest != crawled[1].Digest || len(cs) != 0 {
					t.Fatalf("a check not of the twin's pages: %d pages uploaded, %d confirmations; want the 2 fetched, none", len(got), len(cs))
				}
				return
			}
			if len(got) != 3 {
				t.Fatalf("%d pages uploaded for the check, want the sample's 3", len(got))
			}
			for _, p := range got {
				i := slices.IndexFunc(uploaded, func(q *task.Page) bool { return q.URL == p.URL })
				if i < 0 || p.Digest != uploaded[i].Digest {
					t.Errorf("check page %s is not the twin's forgery", p.URL)
				}
			}
			want := []adversary.Confirmation{{Check: tt.id, Of: own.ID, Pages: 3}}
			if !slices.Equal(cs, want) {
				t.Fatalf("confirmations %v, want %v", cs, want)
			}
		})
	}
	// Another peer's result is checked honestly.
	other := check("check/bbbb/3")
	other.Seeds = []string{"http://else.example/1"}
	other.Lease.Host, other.Channel = "else.example", "else.example"
	page := &task.Page{URL: "http://else.example/1", Status: 200, Text: []byte("true"), Digest: task.DigestString("true")}
	if _, err := b.Upload(ctx, delivery(t, other, key, []*task.Page{page})); err != nil {
		t.Fatal(err)
	}
	if got := rec.got[other.ID]; len(got) != 1 || got[0].Digest != page.Digest {
		t.Fatalf("another peer's check: uploaded %v, want the page fetched", got)
	}
}

// TestSquatter: a squatter fetches nothing and holds its task until the
// lease's context ends; it logs the lease when claimed and again when it
// ended, saying whether the manager ended it, and fails the task.
func TestSquatter(t *testing.T) {
	tests := []struct {
		name      string
		cause     error
		byManager bool
	}{
		{"renewal refused", fmt.Errorf("lease ended: %w", errors.Join(taskmgr.ErrLeaseOver, errors.New("stalled for 6m40s"))), true},
		{"client stopping", errors.New("shutdown"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Squatter{Dir: t.TempDir()}
			ctx, cancel := context.WithCancelCause(context.Background())
			tk := &task.Task{ID: "site.example/1/0", Channel: "site.example", Seeds: []string{"http://site.example/"}}
			sink := &recordSink{}
			done := make(chan error, 1)
			go func() {
				_, err := s.Run(ctx, tk, sink)
				done <- err
			}()
			// Held: the claim is logged, nothing fetched.
			var recs []adversary.Squatted
			for range 200 {
				if recs, _ = adversary.ReadSquats(s.Dir); len(recs) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(recs) != 1 || !recs[0].Ended.IsZero() || recs[0].Host != "site.example" {
				t.Fatalf("while held: %+v, want one lease of site.example, not ended", recs)
			}
			select {
			case err := <-done:
				t.Fatalf("Run returned %v before its lease ended", err)
			case <-time.After(50 * time.Millisecond):
			}
			cancel(tt.cause)
			if err := <-done; !errors.Is(err, ErrSquatted) {
				t.Fatalf("Run = %v, want ErrSquatted", err)
			}
			recs, err := adversary.ReadSquats(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Ended.IsZero() || recs[0].ByManager != tt.byManager || recs[0].Held() <= 0 {
				t.Fatalf("after: %+v, want one lease ended, by the manager %v", recs, tt.byManager)
			}
			if sink.n != 0 {
				t.Fatalf("the squatter sent %d pages", sink.n)
			}
		})
	}
}

type recordSink struct{ n int }

func (s *recordSink) Page(*task.Page) error { s.n++; return nil }
