package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunningTaskProgress: while a crawl runs, the status says how many
// pages it fetched, how many it knows of, and, once it has a pace, the time
// left.
func TestRunningTaskProgress(t *testing.T) {
	const links = 15
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(250 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>Words about %s.</p>", r.URL.Path)
		if r.URL.Path == "/" {
			for i := range links {
				fmt.Fprintf(w, `<a href="/p%d">%d</a> `, i, i)
			}
		}
		fmt.Fprint(w, "</body></html>")
	}))
	t.Cleanup(srv.Close)
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seeds, []byte(srv.URL+"/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	quietConfig(t, home, "")
	c, ctx := serveLocal(t, home, seeds)
	eventually(t, "a time-left estimate", func() bool {
		st, err := c.Status(ctx)
		if err != nil || len(st.Tasks.Running) != 1 {
			return false
		}
		r := st.Tasks.Running[0]
		if r.Pages >= 2 && r.Known != links+1 {
			t.Fatalf("running task %+v: want %d pages known", r, links+1)
		}
		return r.SecondsLeft > 0
	})
}
