package eventlog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSentence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		message string
		attrs   []string
		want    string
	}{
		{"task started", "Task started", []string{"part=tasks", "task=127.0.0.1:35313/1/0", "channel=example.org", "attempt=1"}, "Started crawling example.org."},
		{"task started again", "Task started", []string{"channel=example.org", "attempt=3"}, "Started crawling example.org (attempt 3)."},
		{"task done", "Task done", []string{"part=tasks", "task=t1", "channel=example.org", "pages=36", "elapsed=981ms"}, "Finished crawling example.org: 36 pages in 1 s."},
		{"task done, one page, long", "Task done", []string{"channel=example.org", "pages=1", "elapsed=3m4.2s"}, "Finished crawling example.org: 1 page in 3 min 4 s."},
		{"uploaded", "Result uploaded", []string{"part=tasks", "task=t1", "channel=example.org"}, "Delivered what was crawled of example.org."},
		{"stored", "Upload stored", []string{"part=solo manager", "task=t1", "peer=12D3KooW", "new=36", "changed=0", "unchanged=0", "credits=36"}, "Stored 36 new pages for 36 credits."},
		{"one credit", "Upload stored", []string{"new=1", "changed=0", "credits=1"}, "Stored 1 new page for 1 credit."},
		{"recrawled", "Upload stored", []string{"new=2", "changed=3", "unchanged=26", "credits=3.1"}, "Stored 2 new, 3 changed and 26 unchanged pages for 3.1 credits."},
		{"nothing", "Upload stored", []string{"new=0", "changed=0", "unchanged=0", "credits=0"}, "Stored no pages for 0 credits."},
		{"paused by quota", "Crawling state changed", []string{"part=governor", "reasons=Paused: daily transfer quota of 1.00 KB reached"}, "Paused: daily transfer quota of 1.00 KB reached."},
		{"free again", "Crawling state changed", []string{"part=governor", "reasons="}, "Crawling freely again: nothing holds it back."},
		{"settings", "Configuration changed", []string{"threads=3", "queue_length=5"}, "Settings changed."},
		{"set aside", "Task set aside after crashes", []string{"task=t1", "channel=example.org", "crashes=3", "reason=the client crashed 3 times while crawling it"}, "Set aside example.org after 3 crashes: the client crashed 3 times while crawling it."},
		{"channel removed", "Channel removed", []string{"channel=example.org"}, "Removed the channel example.org."},
		{"revoked", "Credit settled", []string{"task=t1", "state=revoked", "credits=3", "reason=2 of 5 pages differ"}, "Credits revoked: 2 of 5 pages differ."},
		{"still pending", "Credit settled", []string{"task=t1", "state=pending"}, "Credit settled."},
		{"start at login", "Start at login changed", []string{"on=true", "entry=/home/v/.config/autostart/hivecrawl.desktop"}, "Start at login turned on."},
		{"host", "Host started", []string{"part=overlay", "addrs=[/ip4/127.0.0.1/tcp/1]"}, "Ready for peer-to-peer connections."},
		{"solo manager's host", "Host started", []string{"part=solo manager", "addrs=[/ip4/127.0.0.1/tcp/2]"}, "The manager is ready for peer-to-peer connections."},
		{"unknown, as its message", "The manager answers again", nil, "The manager answers again."},
		{"unknown with a stop", "Refused a task issued in the future: set the clock.", []string{"task=t1"}, "Refused a task issued in the future: set the clock."},
		{"missing attributes", "Task done", nil, "Finished crawling a site: 0 pages."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Event{Level: "INFO", Message: tc.message, Attrs: tc.attrs}.Sentence()
			if got != tc.want {
				t.Errorf("sentence %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzSentence: any record reads as a sentence with no key=value in it
// that was not in its message.
func FuzzSentence(f *testing.F) {
	f.Add("Task done", "channel=example.org\npages=36\nelapsed=981ms")
	f.Add("Crawling state changed", "reasons=[Paused: x]")
	f.Add("Upload stored", "new=x\ncredits=NaN")
	f.Fuzz(func(t *testing.T, message, attrs string) {
		e := Event{Message: message, Attrs: strings.Split(attrs, "\n")}
		s := e.Sentence()
		if !utf8.ValidString(message) || !utf8.ValidString(attrs) {
			return
		}
		if strings.TrimSpace(message) != "" && s == "" {
			t.Errorf("no sentence for %q", message)
		}
		if strings.Contains(s, "=") && !strings.Contains(message, "=") && !strings.Contains(attrs, "=") {
			t.Errorf("sentence %q has a key=value", s)
		}
	})
}
