package indexnow

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestLimiter(t *testing.T) {
	l := NewLimiter(3, 10*time.Second, 2)
	for i := range 3 {
		if ok, _ := l.Allow("a.example", t0); !ok {
			t.Fatalf("submission %d of the burst refused", i+1)
		}
	}
	ok, wait := l.Allow("a.example", t0.Add(4*time.Second))
	if ok || wait != 6*time.Second {
		t.Fatalf("past the burst: %v, retry after %v; want refused, 6s", ok, wait)
	}
	for range 2 {
		if ok, _ := l.Allow("b.example", t0); !ok {
			t.Fatal("another host is limited by the first one's submissions")
		}
	}
	if ok, _ := l.Allow("a.example", t0.Add(10*time.Second)); !ok {
		t.Fatal("a token refilled after 10 s was not given")
	}
	// Full: a third host waits while both others are active, and gets in
	// once one of them is idle (its bucket full again).
	if ok, _ := l.Allow("c.example", t0.Add(10*time.Second)); ok {
		t.Fatal("a third host got in while the table was full of active hosts")
	}
	if ok, _ := l.Allow("c.example", t0.Add(time.Minute)); !ok {
		t.Fatal("a third host refused once the others were idle")
	}
}

func TestCache(t *testing.T) {
	c := NewCache(time.Hour, 2)
	c.Add("a", t0)
	if !c.Has("a", t0.Add(59*time.Minute)) || c.Has("a", t0.Add(time.Hour)) || c.Has("b", t0) {
		t.Fatal("a key is trusted outside its hour, or an unknown key is")
	}
	for i := range 5 {
		c.Add(fmt.Sprint(i), t0.Add(time.Duration(i)*time.Minute))
	}
	if c.Len() != 2 || !c.Has("4", t0.Add(5*time.Minute)) || !c.Has("3", t0.Add(5*time.Minute)) {
		t.Fatalf("a full cache kept %d keys; want the two latest", c.Len())
	}
}
