package crawler

import (
	"fmt"
	"hash/fnv"
	"os"
	"testing"
)

func TestFrontierFIFOAndSpill(t *testing.T) {
	for _, tc := range []struct {
		name       string
		max, n     int
		interleave bool
	}{
		{"fits in memory", 10, 7, false},
		{"spills", 10, 95, false},
		{"spills with pops between pushes", 10, 95, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := newFrontier(dir, tc.max)
			next := 0
			pop := func() {
				t.Helper()
				e, ok, err := f.Pop()
				if err != nil || !ok {
					t.Fatalf("Pop = %v, %v, %v", e, ok, err)
				}
				if want := fmt.Sprintf("http://h/%d", next); e.URL != want || e.Depth != next%5 {
					t.Fatalf("Pop = %+v, want %s depth %d", e, want, next%5)
				}
				next++
			}
			for i := range tc.n {
				if err := f.Push(entry{URL: fmt.Sprintf("http://h/%d", i), Depth: i % 5}); err != nil {
					t.Fatal(err)
				}
				if f.InMemory() > tc.max {
					t.Fatalf("%d entries in memory, max %d", f.InMemory(), tc.max)
				}
				if tc.interleave && i%3 == 0 {
					pop()
				}
			}
			for next < tc.n {
				pop()
			}
			if _, ok, _ := f.Pop(); ok || f.Len() != 0 {
				t.Fatalf("frontier not empty after draining: len %d", f.Len())
			}
			if f.PeakInMemory() > tc.max {
				t.Fatalf("peak %d in memory, max %d", f.PeakInMemory(), tc.max)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != 0 {
				t.Fatalf("spill file left behind: %v", left)
			}
		})
	}
}

func TestFNV64a(t *testing.T) {
	h := fnv.New64a()
	_, _ = h.Write([]byte("http://example.com/a"))
	if got := fnv64a("http://example.com/a"); got != h.Sum64() {
		t.Fatalf("fnv64a = %x, hash/fnv says %x", got, h.Sum64())
	}
}

func TestSeenSet(t *testing.T) {
	s := newSeenSet(0)
	if !s.Add("http://h/a") || s.Add("http://h/a") || !s.Add("http://h/b") {
		t.Fatal("seen set does not report first sightings exactly once")
	}
}
