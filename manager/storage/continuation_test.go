package storage

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// A handed-off result gets a continuation only when its rest is one the
// task may go on with: URLs of its own host, within the limits.
func TestContinuationOfHandedOffResult(t *testing.T) {
	tk := &task.Task{ID: "a.example/1/0", Channel: "a.example", Seeds: []string{"http://a.example/"}, MaxDepth: 3,
		Lease: task.Lease{Host: "a.example", Epoch: 4}, Target: []float64{0.5}, Issued: time.Now()}
	rest := func(urls ...string) *task.Rest {
		r := &task.Rest{Requests: 7, Seen: make([]byte, 16)}
		for _, u := range urls {
			r.Todo = append(r.Todo, task.Pending{URL: u, Depth: 1})
		}
		return r
	}
	tests := []struct {
		name string
		res  task.Result
		want bool
	}{
		{"handed off", task.Result{Stopped: task.StoppedHandedOff, Rest: rest("http://a.example/b")}, true},
		{"nothing left", task.Result{Stopped: task.StoppedHandedOff, Rest: rest()}, false},
		{"not handed off", task.Result{Stopped: "max pages", Rest: rest("http://a.example/b")}, false},
		{"another host", task.Result{Stopped: task.StoppedHandedOff, Rest: rest("http://a.example/b", "http://b.example/")}, false},
		{"seen set torn", task.Result{Stopped: task.StoppedHandedOff, Rest: &task.Rest{Todo: rest("http://a.example/b").Todo, Seen: make([]byte, 9)}}, false},
	}
	for _, tt := range tests {
		next := continuation(tk, &tt.res)
		if (next != nil) != tt.want {
			t.Errorf("%s: continuation %v, want one: %v", tt.name, next, tt.want)
			continue
		}
		if next == nil {
			continue
		}
		if next.ID != "a.example/1/0+2" || next.Resume != tt.res.Rest || next.Lease.Epoch != 0 || next.Target != nil || !next.Issued.IsZero() {
			t.Errorf("%s: continuation %+v keeps what the manager sets at sending", tt.name, next)
		}
	}
}
