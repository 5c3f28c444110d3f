package channels

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// openDB opens a database at path, or a new one in the test's directory
// when path is empty: a bbolt file, or with HIVECRAWL_TEST_POSTGRES=1 a
// throwaway PostgreSQL server (pgtest), which runs the package's tests on
// the shared store.
func openDB(t *testing.T, path string, opts Options) *DB {
	t.Helper()
	if path == "" && os.Getenv("HIVECRAWL_TEST_POSTGRES") == "1" {
		d, err := OpenPostgres(context.Background(), pgtest.Start(t).DSN, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	if path == "" {
		path = filepath.Join(t.TempDir(), "channels.db")
	}
	d, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestParseSeed(t *testing.T) {
	tests := []struct {
		name, in, seed, channel string
		bad                     bool
	}{
		{name: "plain", in: "http://Example.COM", seed: "http://example.com/", channel: "example.com"},
		{name: "port kept", in: "http://127.0.0.1:8080/a?b=c#frag", seed: "http://127.0.0.1:8080/a?b=c", channel: "127.0.0.1:8080"},
		{name: "default port dropped", in: "https://ex.com:443/x", seed: "https://ex.com/x", channel: "ex.com"},
		{name: "ipv6", in: "http://[::1]:80/", seed: "http://[::1]/", channel: "[::1]"},
		{name: "spaces trimmed", in: "  https://ex.com/  ", seed: "https://ex.com/", channel: "ex.com"},
		// Every spelling of a host is the crawler's one host: one channel,
		// one lease.
		{name: "idn host as punycode", in: "https://Bücher.example/a", seed: "https://xn--bcher-kva.example/a", channel: "xn--bcher-kva.example"},
		{name: "trailing dot dropped", in: "http://example.com./", seed: "http://example.com/", channel: "example.com"},
		{name: "trailing dot before a port", in: "http://example.com.:8080/", seed: "http://example.com:8080/", channel: "example.com:8080"},
		{name: "only dots", in: "http://../", bad: true},
		{name: "ftp", in: "ftp://ex.com/", bad: true},
		{name: "relative", in: "/a/b", bad: true},
		{name: "no host", in: "http:///a", bad: true},
		{name: "user info", in: "http://u:p@ex.com/", bad: true},
		{name: "empty", in: "", bad: true},
		{name: "too long", in: "http://ex.com/" + strings.Repeat("a", task.MaxURLLength), bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seed, ch, err := ParseSeed(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrBadSeed) {
					t.Fatalf("ParseSeed(%q) = %q, %q, %v; want ErrBadSeed", tt.in, seed, ch, err)
				}
				return
			}
			if err != nil || seed != tt.seed || ch != tt.channel {
				t.Fatalf("ParseSeed(%q) = %q, %q, %v; want %q, %q", tt.in, seed, ch, err, tt.seed, tt.channel)
			}
		})
	}
}

func TestReadSeeds(t *testing.T) {
	in := "# seeds\nhttp://a.example/\n\n  https://b.example/x  \nnot a url\nftp://c/\n"
	seeds, bad, err := ReadSeeds(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 2 || seeds[1] != "https://b.example/x" {
		t.Fatalf("seeds = %q", seeds)
	}
	if len(bad) != 2 || !strings.Contains(bad[0].Error(), "line 5") {
		t.Fatalf("bad = %v", bad)
	}
}

func TestAddSeedsPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	created, err := d.AddSeeds([]string{"http://a.example/", "http://a.example/news/", "http://b.example/", "http://a.example/"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || created[0].ID != "a.example" || created[1].Index != 1 {
		t.Fatalf("created = %+v", created)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = openDB(t, path, Options{})
	all, err := d.All(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || len(all[0].Seeds) != 2 || all[0].ChangeInterval != DefaultPrior || all[0].Group != 2 {
		t.Fatalf("after reopen: %+v", all)
	}
	if rest, _ := d.All(1); len(rest) != 1 || rest[0].ID != "b.example" {
		t.Fatalf("All(1) = %+v", rest)
	}
	if _, err := d.Get("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(nope) = %v", err)
	}
}

func issue(t *testing.T, d *DB, id string, round int, now time.Time) []Task {
	t.Helper()
	c, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Task
	for _, tk := range c.Tasks(round, PagePlan{}) {
		recs = append(recs, Task{ID: tk.ID, Channel: id, Round: round, Issued: now, Deadline: now.Add(time.Hour)})
	}
	if err := d.Issue(id, round, recs, now); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestCompleteFirstResultWins(t *testing.T) {
	d := openDB(t, "", Options{MaxPerFeedback: 2, MaxChannels: 3})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	recs := issue(t, d, "a.example", 1, t0)
	fb := Feedback{
		Pages: []PageResult{{URL: "http://a.example/", Digest: 7, ETag: `"x"`}, {URL: "http://a.example/p", Digest: 8}},
		Stats: task.Stats{PagesFetched: 2, Dirs: map[string]int{"/": 2}},
		// Three new hosts, limit 2 per feedback; a repeat and junk are skipped.
		InterSite: []string{"http://b.example/", "javascript:x", "http://b.example/2", "http://c.example/", "http://d.example/"},
	}
	tests := []struct {
		name      string
		id, peer  string
		wantErr   error
		wantFirst bool
		wantPeer  string
	}{
		{"never issued", "a.example/9/0", "p1", ErrNotFound, false, ""},
		{"first", recs[0].ID, "p1", nil, true, "p1"},
		{"same peer again", recs[0].ID, "p1", nil, false, "p1"},
		{"other peer later", recs[0].ID, "p2", nil, false, "p1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := d.Complete(tt.id, tt.peer, fb, t0.Add(time.Minute))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Complete = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if out.First != tt.wantFirst || out.Task.Peer != tt.wantPeer {
				t.Fatalf("outcome %+v", out)
			}
			if tt.wantFirst && (!out.RoundDone || len(out.Created) != 2 || out.Channel.ExpectedPages != 2) {
				t.Fatalf("first outcome %+v", out)
			}
		})
	}
	c, _ := d.Get("a.example")
	if c.Updates != 1 || c.Pages["http://a.example/"].ETag != `"x"` || len(c.InterSite) != 5 {
		t.Fatalf("channel after results: updates %d pages %+v inter-site %d", c.Updates, c.Pages, len(c.InterSite))
	}
	// The limit of 3 channels stops the next feedback after one more.
	recs = issue(t, d, "a.example", 2, t0.Add(2*time.Hour))
	out, err := d.Complete(recs[0].ID, "p1", Feedback{InterSite: []string{"http://e.example/", "http://f.example/"}}, t0.Add(3*time.Hour))
	if err != nil || len(out.Created) != 0 {
		t.Fatalf("over the channel limit: created %d, %v", len(out.Created), err)
	}
	if n, _ := d.Count(); n != 3 {
		t.Fatalf("%d channels, want 3", n)
	}
}

func TestChangeEstimateFromFeedback(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	pages := func(changed int) []PageResult {
		var ps []PageResult
		for i := range 10 {
			ps = append(ps, PageResult{URL: "http://a.example/" + string(rune('a'+i)), Digest: task.Digest(i), Known: true, Changed: i < changed})
		}
		return ps
	}
	now := t0
	for round := 1; round <= 4; round++ {
		recs := issue(t, d, "a.example", round, now)
		now = now.Add(time.Hour)
		if _, err := d.Complete(recs[0].ID, "p", Feedback{Pages: pages(5)}, now); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := d.Get("a.example")
	// 30 observations (the first crawl has no gap), 15 changes, 1 h apart:
	// λ = −ln(15.5/30.5) per hour ≈ 0.677/h, interval ≈ 88.6 min.
	if c.ChangeInterval < 85*time.Minute || c.ChangeInterval > 92*time.Minute {
		t.Fatalf("change interval %v, want ≈ 88.6 min", c.ChangeInterval)
	}
}

func TestExpire(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	recs := issue(t, d, "a.example", 1, t0)
	if lost, err := d.Expire(t0.Add(30*time.Minute), time.Minute); err != nil || len(lost) != 0 {
		t.Fatalf("early Expire = %v, %v", lost, err)
	}
	lost, err := d.Expire(t0.Add(2*time.Hour), time.Minute)
	if err != nil || len(lost) != 1 || !lost[0].RoundDone || lost[0].RoundOK {
		t.Fatalf("Expire = %+v, %v", lost, err)
	}
	out, err := d.Complete(recs[0].ID, "late", Feedback{}, t0.Add(3*time.Hour))
	if err != nil || out.First {
		t.Fatalf("a result after expiry was recorded: %+v, %v", out, err)
	}
	st, _ := d.Stats()
	if st.Counts[TaskFailed] != 1 {
		t.Fatalf("counts %v", st.Counts)
	}
}

func TestTaskStats(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/", "http://b.example/", "http://c.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	a := issue(t, d, "a.example", 1, t0)
	b := issue(t, d, "b.example", 1, t0)
	c := issue(t, d, "c.example", 1, t0)
	for _, x := range []struct{ id, reason string }{
		{a[0].ID, "expired"}, {b[0].ID, "refused"}, {b[0].ID, "expired"}, // the second report of b changes nothing
	} {
		if _, _, err := d.Cancel(x.id, 0, "", x.reason, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Complete(c[0].ID, "p", Feedback{}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	st, err := d.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Cancelled; len(got) != 2 || got["expired"] != 1 || got["refused"] != 1 {
		t.Fatalf("cancelled by reason %v, want expired 1, refused 1", got)
	}
	if st.Counts[TaskCancelled] != 2 || st.Counts[TaskDone] != 1 || st.Cancelled["expired"] != 1 || !st.OldestOpen.IsZero() {
		t.Fatalf("stats %+v, want 2 cancelled (1 expired), 1 done, none open", st)
	}
	issue(t, d, "a.example", 2, t0.Add(2*time.Minute))
	issue(t, d, "b.example", 2, t0.Add(time.Minute))
	if st, _ := d.Stats(); !st.OldestOpen.Equal(t0.Add(time.Minute)) || st.Counts[TaskOpen] != 2 {
		t.Fatalf("stats %+v, want 2 open, the oldest issued at %v", st, t0.Add(time.Minute))
	}
}

func TestTasksOfPieces(t *testing.T) {
	c := Channel{ID: "ex.com", Seeds: []string{"https://ex.com/start"}, MaxDepth: 3,
		Pages:  map[string]Page{"https://ex.com/a": {Digest: 1, ETag: "e"}},
		Pieces: []pieces.Piece{{Dirs: []string{"/news/"}, Pages: 10}, {Dirs: []string{"/", "/misc/"}, Pages: 5}}}
	ts := c.Tasks(4, PagePlan{})
	if len(ts) != 2 {
		t.Fatalf("%d tasks", len(ts))
	}
	// The known page is a root-level file: only the piece holding "/"
	// carries it.
	for i, tk := range ts {
		tk.Issued = t0
		if err := tk.Validate(); err != nil {
			t.Fatal(err)
		}
		if tk.Seeds[0] != "https://ex.com/" || len(tk.KnownPages) != i || len(tk.Validators) != i {
			t.Fatalf("task %d: %+v", i, tk)
		}
	}
	if ts[0].ID != "ex.com/4/0" || len(ts[1].Filters) != 2 || ts[0].ExpectedPages != 10 {
		t.Fatalf("tasks %+v %+v", ts[0], ts[1])
	}
	c.Pieces = nil
	if ts := c.Tasks(5, PagePlan{}); len(ts) != 1 || ts[0].Seeds[0] != "https://ex.com/start" || len(ts[0].Filters) != 0 {
		t.Fatalf("whole-host task %+v", ts)
	}
	long := Channel{ID: strings.Repeat("a", 200) + ".com", Seeds: []string{"http://x/"}}
	if id := long.Tasks(1, PagePlan{})[0].ID; len(id) > 128 {
		t.Fatalf("task ID of %d bytes", len(id))
	}
}

func FuzzReadSeeds(f *testing.F) {
	f.Add("http://a.example/\n# c\nhttps://b:8080/x?y#z\n")
	f.Add("http://[::1]:80/\nftp://x/\n\x00\n")
	f.Fuzz(func(t *testing.T, in string) {
		seeds, _, err := ReadSeeds(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, s := range seeds {
			again, ch, err := ParseSeed(s)
			if err != nil || again != s || ch == "" {
				t.Fatalf("seed %q does not re-parse to itself: %q, %q, %v", s, again, ch, err)
			}
		}
	})
}

func TestMarkSent(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	rec := Task{ID: "a.example/1/0", Channel: "a.example", Round: 1, Deadline: t0.Add(time.Hour), Envelope: []byte("env")}
	if err := d.Issue("a.example", 1, []Task{rec}, t0); err != nil {
		t.Fatal(err)
	}
	open, _ := d.Open()
	if len(open) != 1 || open[0].Sent || string(open[0].Envelope) != "env" {
		t.Fatalf("open before sending: %+v", open)
	}
	if err := d.MarkSent(rec.ID, "peer-a"); err != nil {
		t.Fatal(err)
	}
	open, _ = d.Open()
	if len(open) != 1 || !open[0].Sent || open[0].Envelope != nil || open[0].Owner != "peer-a" {
		t.Fatalf("open after sending: %+v", open)
	}
	latest, err := d.Latest()
	if err != nil || latest["a.example"].ID != rec.ID || latest["a.example"].Owner != "peer-a" {
		t.Fatalf("latest %+v, %v", latest, err)
	}
	// A new round not sent yet leaves the last round that reached a peer.
	rec2 := Task{ID: "a.example/2/0", Channel: "a.example", Round: 2, Deadline: t0.Add(time.Hour), Envelope: []byte("env")}
	if err := d.Issue("a.example", 2, []Task{rec2}, t0); err != nil {
		t.Fatal(err)
	}
	if latest, err = d.Latest(); err != nil || latest["a.example"].ID != rec.ID {
		t.Fatalf("latest with an unsent round: %+v, %v", latest, err)
	}
	if err := d.MarkSent(rec2.ID, "peer-b"); err != nil {
		t.Fatal(err)
	}
	if latest, err = d.Latest(); err != nil || latest["a.example"].Owner != "peer-b" {
		t.Fatalf("latest after sending round 2: %+v, %v", latest, err)
	}
	if err := d.MarkSent("nope", "peer-a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("MarkSent(nope) = %v", err)
	}
}

// A result handed off with a continuation keeps its round open: the
// continuation joins the round and its result ends it. A continuation of
// a round the channel has left, or for another host, is not issued.
func TestCompleteHandedOffContinues(t *testing.T) {
	d := openDB(t, "", Options{MaxPerFeedback: -1})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	recs := issue(t, d, "a.example", 1, t0)
	first := recs[0]
	next := &task.Task{ID: task.ContinuationID(first.ID), Channel: "a.example", Seeds: []string{"http://a.example/"},
		Resume: &task.Rest{Todo: []task.Pending{{URL: "http://a.example/b", Depth: 1}}}}
	fb := Feedback{Pages: []PageResult{{URL: "http://a.example/", Digest: 1}}, Stopped: task.StoppedHandedOff, Continue: next}
	if err := d.updateTask(first.ID, func(tk *Task) { tk.Host = "a.example" }); err != nil {
		t.Fatal(err)
	}
	out, err := d.Complete(first.ID, "p1", fb, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if out.RoundDone || out.Continued != next.ID || out.Channel.Pending != 1 {
		t.Fatalf("handed-off outcome: round done %v, continued %q, pending %d", out.RoundDone, out.Continued, out.Channel.Pending)
	}
	cont, err := d.Task(next.ID)
	if err != nil || cont.State != TaskOpen || cont.Round != 1 || len(cont.Spec) == 0 || cont.Host != "a.example" {
		t.Fatalf("continuation %+v, %v", cont, err)
	}
	if !cont.Deadline.Equal(t0.Add(time.Minute).Add(time.Hour)) {
		t.Errorf("continuation deadline %v, want as long as the first task had", cont.Deadline)
	}
	out, err = d.Complete(next.ID, "p2", Feedback{Pages: []PageResult{{URL: "http://a.example/b", Digest: 2}}}, t0.Add(2*time.Minute))
	if err != nil || !out.RoundDone || !out.RoundOK || len(out.Channel.Pages) != 2 {
		t.Fatalf("continuation's outcome %+v, %v", out, err)
	}

	// Round 2 is handed off after round 3 began: no continuation.
	recs = issue(t, d, "a.example", 2, t0.Add(time.Hour))
	old := recs[0]
	if err := d.updateTask(old.ID, func(tk *Task) { tk.Host = "a.example" }); err != nil {
		t.Fatal(err)
	}
	issue(t, d, "a.example", 3, t0.Add(2*time.Hour))
	stale := *next
	stale.ID = task.ContinuationID(old.ID)
	if out, err := d.Complete(old.ID, "p1", Feedback{Stopped: task.StoppedHandedOff, Continue: &stale}, t0.Add(3*time.Hour)); err != nil || out.Continued != "" {
		t.Fatalf("continuation of a past round: %q, %v", out.Continued, err)
	}
	if _, err := d.Task(stale.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a past round's continuation was stored: %v", err)
	}
}

func TestImport(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	chs := []Channel{{ID: "b.example", Index: 1, Seeds: []string{"http://b.example/"}, LastSubmit: t0}, {ID: "c.example", Index: 2}}
	if err := d.Import(chs); err != nil {
		t.Fatal(err)
	}
	if err := d.Import([]Channel{{ID: "d.example", Index: 2}}); err == nil {
		t.Fatal("an index that does not continue the database's was taken")
	}
	all, err := d.All(0)
	if err != nil || len(all) != 3 || all[1].ID != "b.example" || !all[1].LastSubmit.Equal(t0) {
		t.Fatalf("All = %+v, %v", all, err)
	}
	if rest, _ := d.All(2); len(rest) != 1 || rest[0].ID != "c.example" {
		t.Fatalf("All(2) = %+v", rest)
	}
}

// TestHostSpellingsOneChannel: a seed and the links a crawl reports name
// one host in several spellings; they make one channel, so one lease.
func TestHostSpellingsOneChannel(t *testing.T) {
	d := openDB(t, "", Options{})
	created, err := d.AddSeeds([]string{"https://bücher.example/", "https://XN--BCHER-KVA.example./a", "https://xn--bcher-kva.example/b"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 1 || created[0].ID != "xn--bcher-kva.example" {
		t.Fatalf("created %+v; want the one channel xn--bcher-kva.example", created)
	}
}
