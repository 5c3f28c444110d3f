package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Kind is a kind of notification, switched on or off on its own.
type Kind string

// The kinds, named as their config.Notifications switches.
const (
	FirstContribution Kind = "first_contribution"
	DailySummary      Kind = "daily_summary"
	Milestone         Kind = "milestones"
	Problem           Kind = "problems"
)

// Message is one notification.
type Message struct {
	Kind  Kind   `json:"kind"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Timing of the rules.
const (
	// SummaryHour is the local hour from which the day's summary is sent.
	SummaryHour = 20
	// OfflineAfter is how long crawling may download nothing before the
	// network counts as out of reach.
	OfflineAfter = time.Hour
	// ProblemRepeat is how soon the same problem is told again.
	ProblemRepeat = 12 * time.Hour
	// MaxPerHour caps all notifications together.
	MaxPerHour = 3
)

// Milestones are the confirmed-credit marks worth a notification.
var Milestones = []float64{100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000}

// State is what the rules remember, kept on disk between runs.
type State struct {
	// Started is set once the rules have seen a first status; before that
	// nothing already achieved is announced.
	Started     bool      `json:"started"`
	FirstDone   bool      `json:"first_done"`
	Milestone   float64   `json:"milestone"`    // highest mark announced
	SummaryDate string    `json:"summary_date"` // last day summarised
	QuietSince  time.Time `json:"quiet_since,omitzero"`
	// Problems maps a problem's key to when it was last told.
	Problems map[string]time.Time `json:"problems,omitempty"`
	// Sent are the times of recent notifications, for MaxPerHour.
	Sent []time.Time `json:"sent,omitempty"`
}

// Rules decides what to tell. It is not safe for concurrent use.
type Rules struct {
	State State
}

// Observe looks at one status (or the error reading it) at now under the
// switches sw and returns what to tell. It advances State only for what it
// returns, so a message held back by the rate limit comes later.
func (r *Rules) Observe(now time.Time, st localapi.Status, err error, sw config.Notifications) []Message {
	s := &r.State
	if s.Problems == nil {
		s.Problems = map[string]time.Time{}
	}
	recent := s.Sent[:0]
	for _, t := range s.Sent {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
		}
	}
	s.Sent = recent
	if err != nil {
		return nil // the tray shows that; nothing to tell here
	}
	if !s.Started {
		// What was achieved before is not news.
		s.Started = true
		s.FirstDone = st.Pages.Total > 0
		s.Milestone = passed(st.Credits.Confirmed)
		if now.Hour() >= SummaryHour {
			s.SummaryDate = now.Format(time.DateOnly) // not today's summary just after the start
		}
	}
	var out []Message
	send := func(m Message) bool {
		if len(s.Sent) >= MaxPerHour {
			return false
		}
		s.Sent = append(s.Sent, now)
		out = append(out, m)
		return true
	}

	if !s.FirstDone && st.Pages.Total > 0 {
		if !sw.FirstContribution || send(Message{FirstContribution, "Your first contribution was accepted",
			fmt.Sprintf("Hivecrawl crawled %s for the search engine. Thank you for helping!", plural(st.Pages.Total, "page"))}) {
			s.FirstDone = true
		}
	}
	if m := passed(st.Credits.Confirmed); m > s.Milestone {
		if !sw.Milestones || send(Message{Milestone, fmt.Sprintf("You passed %s credits", group(int64(m))),
			fmt.Sprintf("Your contribution has earned %s confirmed credits.", group(int64(st.Credits.Confirmed)))}) {
			s.Milestone = m
		}
	}
	day := now.Format(time.DateOnly)
	if now.Hour() >= SummaryHour && s.SummaryDate != day {
		if !sw.DailySummary || send(Message{DailySummary, "Hivecrawl today",
			fmt.Sprintf("Today Hivecrawl crawled %s and transferred %v.", plural(st.Pages.Today, "page"), config.Bytes(st.Transfer.Today))}) {
			s.SummaryDate = day
		}
	}
	for _, p := range r.problems(now, st) {
		last, told := s.Problems[p.key]
		if told && now.Sub(last) < ProblemRepeat {
			continue
		}
		if !sw.Problems || send(Message{Problem, p.title, p.body}) {
			s.Problems[p.key] = now
		}
	}
	return out
}

type problem struct{ key, title, body string }

// problems lists what needs the contributor now.
func (r *Rules) problems(now time.Time, st localapi.Status) []problem {
	var out []problem
	for _, reason := range st.Reasons {
		if strings.Contains(reason, "quota") && strings.Contains(reason, "reached") {
			key := "quota:daily"
			if strings.Contains(reason, "monthly") {
				key = "quota:monthly"
			}
			out = append(out, problem{key, "Hivecrawl paused: transfer quota reached",
				reason + ". It resumes when the quota restarts, or raise the quota in Settings."})
		}
	}
	if st.ConfigProblem != "" {
		out = append(out, problem{"config", "Hivecrawl's settings file has a problem",
			st.ConfigProblem})
	}
	// Crawling without a byte downloaded for an hour: the network is out
	// of reach (or every site is).
	s := &r.State
	if len(st.Tasks.Running) > 0 && st.State != "paused" && st.Download.Current == 0 {
		if s.QuietSince.IsZero() {
			s.QuietSince = now
		}
		if now.Sub(s.QuietSince) >= OfflineAfter {
			out = append(out, problem{"offline", "Hivecrawl cannot reach the network",
				"Nothing could be downloaded for an hour. Check your Internet connection; Hivecrawl keeps trying."})
		}
	} else {
		s.QuietSince = time.Time{}
	}
	return out
}

// passed returns the highest milestone at or below v, or 0.
func passed(v float64) float64 {
	m := 0.0
	for _, x := range Milestones {
		if v >= x {
			m = x
		}
	}
	return m
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return group(n) + " " + word + "s"
}

// group writes n with thousands separators: 12,345.
func group(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + group(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
