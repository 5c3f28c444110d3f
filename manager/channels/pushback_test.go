package channels

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestAnswerKind(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"http_403", "http_403", true},
		{"http_503", "http_503", true},
		{"http_502", "http_5xx", true},
		{"http_404", "", false},
		{"http_5000", "", false},
		{"timeout", "timeout", true},
		{"challenge", "challenge", true},
		{"parse", "", false},
	} {
		if got, ok := AnswerKind(c.in); got != c.want || ok != c.ok {
			t.Errorf("AnswerKind(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestPushBacks: results' refusals are counted per host; a resting host
// comes first, then the host with the most.
func TestPushBacks(t *testing.T) {
	d := openDB(t, "", Options{})
	ts := tasksOn(t, d, "quiet.example", "grumpy.example", "struck.example")
	fbs := []Feedback{
		{Stats: task.Stats{Errors: map[string]int{"http_404": 9}}},
		{Stats: task.Stats{Errors: map[string]int{"http_403": 2, "http_502": 3, "timeout": 1}}},
		{Stats: task.Stats{Errors: map[string]int{"http_429": 1}}, Strike: task.StrikeSlowDown},
	}
	for i, tk := range ts {
		if _, err := d.Complete(tk.ID, "p", fbs[i], t0); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.PushBacks(t0.Add(time.Second), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Host != "struck.example" || got[1].Host != "grumpy.example" {
		t.Fatalf("push-backs %+v, want struck.example (resting), then grumpy.example", got)
	}
	if a := got[1].Answers; a["http_403"] != 2 || a["http_5xx"] != 3 || a["timeout"] != 1 || got[1].Total() != 6 {
		t.Fatalf("grumpy.example's answers %v", a)
	}
}
