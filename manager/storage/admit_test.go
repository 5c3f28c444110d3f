package storage

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// gate is an Admitter that reports each request and holds it until
// opened.
type gate struct {
	asked chan int64
	open  chan struct{}
}

func (g *gate) Admit(ctx context.Context, n int64) (func(), error) {
	g.asked <- n
	select {
	case <-g.open:
		return func() {}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// An upload is stored only once its store is admitted against the memory
// budget, at a cost that covers its largest page and a search batch.
func TestStoreWaitsForAdmission(t *testing.T) {
	g := &gate{asked: make(chan int64, 1), open: make(chan struct{})}
	r := newRigWith(t, func(o *Options) { o.Admit = g })
	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	pages := []*task.Page{page("http://site.example/", "home page text"), page("http://site.example/a", "article a text")}
	done := make(chan error, 1)
	go func() {
		_, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil))
		done <- err
	}()
	var cost int64
	select {
	case cost = <-g.asked:
	case err := <-done:
		t.Fatalf("upload ended without asking for memory: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no admission asked for within a minute")
	}
	if cost < searchCost {
		t.Fatalf("store asked for %d bytes, want at least a search batch's %d", cost, searchCost)
	}
	if _, found, err := r.st.Lookup("http://site.example/a"); err != nil || found {
		t.Fatalf("page stored before its store was admitted (found %v, %v)", found, err)
	}
	close(g.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, found, err := r.st.Lookup("http://site.example/a"); err != nil || !found {
		t.Fatalf("page not stored once admitted (found %v, %v)", found, err)
	}
}
