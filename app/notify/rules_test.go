package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.Local)

var allOn = config.Notifications{FirstContribution: true, DailySummary: true, Milestones: true, Problems: true}

// step is one status seen at t0+at.
type step struct {
	at   time.Duration
	st   localapi.Status
	want []string // titles told, in order
}

func pages(total, today int64) localapi.Status {
	return localapi.Status{State: "running", Pages: localapi.Pages{Total: total, Today: today}}
}

func credits(c float64) localapi.Status {
	return localapi.Status{State: "running", Pages: localapi.Pages{Total: 5}, Credits: localapi.Credits{Confirmed: c}}
}

func crawling(rate int64) localapi.Status {
	return localapi.Status{State: "running", Pages: localapi.Pages{Total: 5},
		Tasks: localapi.Tasks{Running: []localapi.RunningTask{{Channel: "a"}}}, Download: localapi.Rate{Current: rate}}
}

func TestRules(t *testing.T) {
	cases := []struct {
		name  string
		sw    config.Notifications
		steps []step
	}{
		{"first contribution once", allOn, []step{
			{0, pages(0, 0), nil},
			{time.Minute, pages(12, 12), []string{"Your first contribution was accepted"}},
			{2 * time.Minute, pages(30, 30), nil},
		}},
		{"what was done before is not news", allOn, []step{
			{0, credits(1500), nil},
			{time.Minute, credits(1600), nil},
			{2 * time.Minute, credits(10_001), []string{"You passed 10,000 credits"}},
		}},
		{"milestones skip to the highest", allOn, []step{
			{0, credits(0), nil},
			{time.Minute, credits(1234), []string{"You passed 1,000 credits"}},
		}},
		{"switched off, not told later either", config.Notifications{}, []step{
			{0, pages(0, 0), nil},
			{time.Minute, pages(3, 3), nil},
		}},
		{"daily summary after 20:00, once", allOn, []step{
			{0, pages(5, 5), nil},
			{10 * time.Hour, pages(80, 80), nil},
			{11 * time.Hour, pages(90, 90), []string{"Hivecrawl today"}},
			{12 * time.Hour, pages(95, 95), nil},
			{35 * time.Hour, pages(120, 25), []string{"Hivecrawl today"}},
		}},
		{"daily summary is opt-in", config.Notifications{FirstContribution: true, Milestones: true, Problems: true}, []step{
			{0, pages(5, 5), nil},
			{11 * time.Hour, pages(90, 90), nil},
		}},
		{"quota reached, not repeated within hours", allOn, []step{
			{0, pages(5, 5), nil},
			{time.Minute, localapi.Status{State: "paused", Pages: localapi.Pages{Total: 5}, Reasons: []string{"Paused: daily transfer quota of 500 MB reached"}},
				[]string{"Hivecrawl paused: transfer quota reached"}},
			{time.Hour, localapi.Status{State: "paused", Pages: localapi.Pages{Total: 5}, Reasons: []string{"Paused: daily transfer quota of 500 MB reached"}}, nil},
			{14 * time.Hour, localapi.Status{State: "paused", Pages: localapi.Pages{Total: 5}, Reasons: []string{"Paused: daily transfer quota of 500 MB reached"}},
				[]string{"Hivecrawl today", "Hivecrawl paused: transfer quota reached"}},
		}},
		{"offline after an hour without a byte", allOn, []step{
			{0, crawling(0), nil},
			{30 * time.Minute, crawling(0), nil},
			{61 * time.Minute, crawling(0), []string{"Hivecrawl cannot reach the network"}},
		}},
		{"a byte resets the offline clock", allOn, []step{
			{0, crawling(0), nil},
			{50 * time.Minute, crawling(100), nil},
			{70 * time.Minute, crawling(0), nil},
			{100 * time.Minute, crawling(0), nil},
		}},
		{"broken settings file", allOn, []step{
			{0, localapi.Status{State: "running", ConfigProblem: "line 2: bad"}, []string{"Hivecrawl's settings file has a problem"}},
		}},
		{"rate limit holds the rest back, then sends it", allOn, []step{
			{0, credits(0), nil},
			{time.Minute, localapi.Status{State: "paused", Pages: localapi.Pages{Total: 5}, Credits: localapi.Credits{Confirmed: 150},
				ConfigProblem: "x", Reasons: []string{"Paused: daily transfer quota of 1 GB reached", "Paused: monthly transfer quota of 9 GB reached (resets 1 Apr)"}},
				[]string{"You passed 100 credits", "Hivecrawl paused: transfer quota reached", "Hivecrawl paused: transfer quota reached"}},
			{2 * time.Minute, localapi.Status{State: "running", Pages: localapi.Pages{Total: 5}, Credits: localapi.Credits{Confirmed: 150}, ConfigProblem: "x"}, nil},
			{62 * time.Minute, localapi.Status{State: "running", Pages: localapi.Pages{Total: 5}, Credits: localapi.Credits{Confirmed: 150}, ConfigProblem: "x"},
				[]string{"Hivecrawl's settings file has a problem"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Rules
			for i, s := range c.steps {
				var got []string
				for _, m := range r.Observe(t0.Add(s.at), s.st, nil, c.sw) {
					got = append(got, m.Title)
					if m.Body == "" || m.Kind == "" {
						t.Errorf("step %d: empty message %+v", i, m)
					}
				}
				if strings.Join(got, "|") != strings.Join(s.want, "|") {
					t.Errorf("step %d: told %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

func TestStateFile(t *testing.T) {
	path := t.TempDir() + "/notify.json"
	st, err := LoadState(path)
	if err != nil || st.Started {
		t.Fatalf("missing file: %+v %v", st, err)
	}
	var r Rules
	r.Observe(t0, pages(3, 3), nil, allOn)
	if err := SaveState(path, r.State); err != nil {
		t.Fatal(err)
	}
	back, err := LoadState(path)
	if err != nil || !back.Started || !back.FirstDone {
		t.Fatalf("read back %+v %v", back, err)
	}
	r2 := Rules{State: back}
	if msgs := r2.Observe(t0.Add(time.Minute), pages(4, 4), nil, allOn); len(msgs) != 0 {
		t.Errorf("after a restart: %v", msgs)
	}
}

func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"started":true,"first_done":true,"milestone":100,"summary_date":"2026-03-02","problems":{"config":"2026-03-02T09:00:00Z"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"milestone":-1}`))
	f.Add([]byte(`nul`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st State
		if err := ParseState(data, &st); err != nil {
			return
		}
		// Whatever parses, the rules run on it without trouble.
		r := Rules{State: st}
		r.Observe(t0, crawling(0), nil, allOn)
		if len(r.State.Sent) > MaxPerHour+len(st.Sent) {
			t.Fatalf("sent %d", len(r.State.Sent))
		}
	})
}
