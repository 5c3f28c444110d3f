package taskmgr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

// hostRunner wraps a fakeRunner and records the most runs of one host at
// once.
type hostRunner struct {
	*fakeRunner
	mu   sync.Mutex // guards cur and peak
	cur  map[string]int
	peak map[string]int
}

func (h *hostRunner) Run(ctx context.Context, t *task.Task, sink crawler.Sink) (*task.Result, error) {
	host := t.Host()
	h.mu.Lock()
	h.cur[host]++
	h.peak[host] = max(h.peak[host], h.cur[host])
	h.mu.Unlock()
	defer func() { h.mu.Lock(); h.cur[host]--; h.mu.Unlock() }()
	time.Sleep(20 * time.Millisecond) // long enough for a second thread to start beside it
	return h.fakeRunner.Run(ctx, t, sink)
}

func submitTasks(t *testing.T, m *Manager, tasks ...*task.Task) {
	t.Helper()
	for _, tk := range tasks {
		raw, _ := tk.Encode()
		if err := m.Submit(raw, nil, tk); err != nil {
			t.Fatalf("submit %s: %v", tk.ID, err)
		}
	}
}

// TestOneTaskPerHost: however many threads, two tasks of one host never
// run together (one connection per host), and a task of another host is
// not held up behind them.
func TestOneTaskPerHost(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &hostRunner{fakeRunner: &fakeRunner{pages: 2}, cur: map[string]int{}, peak: map[string]int{}}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Threads: 3})
	submitTasks(t, h.m,
		&task.Task{ID: "h/1/0", Channel: "h.example/a/", Seeds: []string{"http://h.example/a/"}},
		&task.Task{ID: "h/1/1", Channel: "h.example/b/", Seeds: []string{"http://h.example/b/"}},
		&task.Task{ID: "h/1/2", Channel: "h.example", Seeds: []string{"http://H.example/"}},
		&task.Task{ID: "g/1/0", Channel: "g.example", Seeds: []string{"http://g.example/"}},
	)
	eventually(t, "all four tasks delivered", allRecorded(t, q, 4))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.peak["h.example"] != 1 {
		t.Fatalf("%d tasks of h.example ran at once, want 1", r.peak["h.example"])
	}
}

// fakeLeaser answers claims and renewals as scripted.
type fakeLeaser struct {
	mu sync.Mutex // guards the fields below
	// claims are the answers to successive claims per task: an error, or
	// nil for a grant of hold.
	claims  map[string][]error
	renew   error // the answer to every renewal
	hold    time.Duration
	claimed map[string]int
	renewed int
	// progress is what each renewal showed.
	progress []Progress
	// released records each release and whether the crawl had ended.
	released []string
	runner   *fakeRunner
	// cutOff makes every claim be granted but its answer lost: the call
	// returns only when its context ends, with that error.
	cutOff bool
}

func (l *fakeLeaser) Claim(ctx context.Context, r *queue.Record) (Grant, error) {
	if l.cutOff {
		l.mu.Lock()
		if l.claimed == nil {
			l.claimed = map[string]int{}
		}
		l.claimed[r.ID]++
		l.mu.Unlock()
		<-ctx.Done()
		return Grant{}, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claimed == nil {
		l.claimed = map[string]int{}
	}
	n := l.claimed[r.ID]
	l.claimed[r.ID]++
	if as := l.claims[r.ID]; n < len(as) && as[n] != nil {
		return Grant{}, as[n]
	}
	if !time.Now().Before(r.Task.Lease.Expires) {
		// As the manager does: a task not started by then never is.
		return Grant{}, fmt.Errorf("%w: not started in time", ErrLeaseOver)
	}
	return Grant{Expires: time.Now().Add(l.hold), RenewEvery: 50 * time.Millisecond}, nil
}

func (l *fakeLeaser) Renew(_ context.Context, r *queue.Record, p Progress) (Grant, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.renewed++
	l.progress = append(l.progress, p)
	if l.renew != nil {
		return Grant{}, l.renew
	}
	return Grant{Expires: time.Now().Add(l.hold), RenewEvery: 50 * time.Millisecond}, nil
}

func (l *fakeLeaser) Release(_ context.Context, r *queue.Record, _ Progress) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released = append(l.released, r.ID)
	if l.runner.running() != 0 {
		l.released = append(l.released, "while running")
	}
	return nil
}

func leased(id string) *task.Task {
	return &task.Task{ID: id, Channel: id, Seeds: []string{"http://" + id + "/"},
		Lease: task.Lease{Host: id, Epoch: 1, Expires: time.Now().Add(time.Hour)}}
}

func TestLeaseClaims(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 2}
	l := &fakeLeaser{hold: time.Minute, runner: r, claims: map[string][]error{
		"held.example": {ErrLeaseHeld, errors.New("manager unreachable")},
		"over.example": {ErrLeaseOver},
	}}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l, ClaimRetry: 20 * time.Millisecond})
	submitTasks(t, h.m, leased("held.example"), leased("over.example"), leased("free.example"),
		&task.Task{ID: "local", Channel: "local", Seeds: []string{"http://local.example/"}})
	eventually(t, "the held task, once granted, and the others done", func() bool {
		st := states(t, q)
		return st["held.example"].State == queue.Done && st["free.example"].State == queue.Done &&
			st["local"].State == queue.Done && st["over.example"].State == queue.Cancelled
	})
	st := states(t, q)
	if !strings.Contains(st["over.example"].Reason, "lease refused") {
		t.Fatalf("refused claim cancelled with %q", st["over.example"].Reason)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claimed["held.example"] != 3 || l.claimed["local"] != 0 {
		t.Fatalf("claims %v: want 3 for the held task (held, unreachable, granted), none without a lease", l.claimed)
	}
}

// TestLeaseEndsCrawl: a crawl stops when its lease is refused renewal or
// runs out unrenewed, and what it fetched is kept as a result cut short.
func TestLeaseEndsCrawl(t *testing.T) {
	tests := []struct {
		name  string
		renew error
		hold  time.Duration
	}{
		{"renewal refused", ErrLeaseOver, time.Minute},
		{"manager unreachable until expiry", errors.New("no route to manager"), 2*time.Second + 300*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			q := openQueue(t, dir, 10)
			r := &fakeRunner{pages: 3, hold: make(chan struct{})} // never released: only the lease ends it
			l := &fakeLeaser{hold: tt.hold, renew: tt.renew, runner: r}
			up := &fakeUploader{}
			h := start(t, q, dir, Options{Runner: r, Uploader: up, Leaser: l, LeaseMargin: 2 * time.Second})
			submitTasks(t, h.m, leased("a.example"))
			eventually(t, "the cut-short result delivered", allRecorded(t, q, 1))
			rec := states(t, q)["a.example"]
			if !strings.Contains(rec.Result.Stopped, "lease ended") {
				t.Fatalf("result stopped %q, want the lease named", rec.Result.Stopped)
			}
			up.mu.Lock()
			defer up.mu.Unlock()
			if up.pages["a.example"] != 1 {
				t.Fatalf("%d pages delivered, want the 1 fetched before the lease ended", up.pages["a.example"])
			}
		})
	}
}

// TestShutdownReleasesAfterStop: a graceful stop releases the lease of an
// interrupted crawl, after the crawl stopped, for the heir.
func TestShutdownReleasesAfterStop(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 3, hold: make(chan struct{})}
	l := &fakeLeaser{hold: time.Minute, runner: r}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l, Grace: 50 * time.Millisecond})
	submitTasks(t, h.m, leased("a.example"))
	eventually(t, "the crawl running", func() bool { return r.running() == 1 })
	h.stop(t)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.released) != 1 || l.released[0] != "a.example" {
		t.Fatalf("released %v, want a.example once, after its crawl stopped", l.released)
	}
}

// TestShutdownReleasesCutOffClaim: a claim the manager granted but whose
// answer a graceful stop cut off is given up, so that the heir the task
// is handed to need not wait for it to lapse.
func TestShutdownReleasesCutOffClaim(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 3}
	l := &fakeLeaser{hold: time.Minute, runner: r, cutOff: true}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l, Grace: 50 * time.Millisecond})
	submitTasks(t, h.m, leased("a.example"))
	eventually(t, "the claim sent", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.claimed["a.example"] == 1 })
	h.stop(t)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Equal(l.released, []string{"a.example"}) {
		t.Fatalf("released %v, want a.example once", l.released)
	}
}

// TestEndLeases: EndLeases ends the leases of every running crawl at once,
// whatever their renewals say (every one is granted here), and a lease claimed
// after it ends as soon as it is granted; what each crawl fetched is kept
// as a result cut short, naming the cause.
func TestEndLeases(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 3, hold: make(chan struct{})} // never released: only the lease ends it
	l := &fakeLeaser{hold: time.Hour, runner: r}
	up := &fakeUploader{}
	h := start(t, q, dir, Options{Runner: r, Uploader: up, Leaser: l, Threads: 2})
	submitTasks(t, h.m, leased("a.example"), leased("b.example"))
	eventually(t, "both crawls running", func() bool { return r.running() == 2 })
	h.m.EndLeases(errors.New("key withdrawn"))
	eventually(t, "both cut-short results delivered", allRecorded(t, q, 2))
	submitTasks(t, h.m, leased("c.example"))
	eventually(t, "the later task's result delivered", allRecorded(t, q, 3))
	for id, rec := range states(t, q) {
		if !strings.Contains(rec.Result.Stopped, "lease ended: key withdrawn") {
			t.Errorf("%s stopped %q, want the cause named", id, rec.Result.Stopped)
		}
	}
}

// TestEndLease: EndLease ends one crawl's lease at once and leaves the
// others running; a lease it ends before the claim is recorded ends as
// soon as it is granted; ending one not held here changes nothing else.
func TestEndLease(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 3, hold: make(chan struct{})} // never released: only a lease ends a crawl
	l := &fakeLeaser{hold: time.Hour, runner: r}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l, Threads: 2})
	submitTasks(t, h.m, leased("a.example"), leased("b.example"))
	eventually(t, "both crawls running", func() bool { return r.running() == 2 })
	if !h.m.EndLease("a.example", errors.New("the site opted out")) {
		t.Fatal("EndLease found no running crawl of a.example")
	}
	eventually(t, "a's cut-short result delivered", allRecorded(t, q, 1))
	if r.running() != 1 {
		t.Fatalf("%d crawls running, want b's still", r.running())
	}
	if h.m.EndLease("c.example", errors.New("the site opted out")) {
		t.Fatal("EndLease stopped a crawl of a task not running yet")
	}
	submitTasks(t, h.m, leased("c.example"))
	eventually(t, "c's result delivered as soon as its lease was granted", allRecorded(t, q, 2))
	st := states(t, q)
	for _, id := range []string{"a.example", "c.example"} {
		if rec := st[id]; rec.Result == nil || !strings.Contains(rec.Result.Stopped, "lease ended: the site opted out") {
			t.Errorf("%s stopped %+v, want the cause named", id, rec.Result)
		}
	}
	if rec := st["b.example"]; rec.State == queue.Done {
		t.Errorf("b's crawl ended too")
	}
}

// TestClaimRetry: a held claim is tried again when the manager says its
// wait is over (a little later, spread), else at the task manager's pace,
// and always in time for two more tries before the task's start-by.
func TestClaimRetry(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	far := now.Add(time.Hour)
	hint := func(d time.Duration) error { return &LeaseHeld{RetryIn: d, Err: errors.New("held")} }
	for _, tc := range []struct {
		name     string
		err      error
		startBy  time.Time
		min, max time.Duration
	}{
		{"no hint", ErrLeaseHeld, far, 10 * time.Second, 10 * time.Second},
		{"the IP wait ends in 300ms", hint(300 * time.Millisecond), far, 300 * time.Millisecond, 361 * time.Millisecond},
		{"a hint beyond our own pace", hint(time.Minute), far, 10 * time.Second, 12*time.Second + time.Millisecond},
		{"a hint of a nanosecond", hint(time.Nanosecond), far, minClaimRetry, minClaimRetry*6/5 + time.Millisecond},
		{"start-by in 6 s", ErrLeaseHeld, now.Add(6 * time.Second), 2 * time.Second, 2 * time.Second},
		{"start-by in 300ms", ErrLeaseHeld, now.Add(300 * time.Millisecond), minClaimRetry, minClaimRetry},
		{"start-by passed", ErrLeaseHeld, now.Add(-time.Second), 10 * time.Second, 10 * time.Second},
		{"no start-by", ErrLeaseHeld, time.Time{}, 10 * time.Second, 10 * time.Second},
	} {
		for range 20 {
			if got := claimRetry(tc.err, 10*time.Second, now, tc.startBy); got < tc.min || got > tc.max {
				t.Fatalf("%s: retry in %v, want %v to %v", tc.name, got, tc.min, tc.max)
			}
		}
	}
}

// TestHeldClaimStartsBeforeItsStartBy: a task whose start-by is 20 s
// away and whose claim the manager holds for 300 ms (the IP wait) is
// claimed again and runs, although the task manager's own claim pace is
// a minute: before, it was tried again after its start-by, refused and
// dropped (the app's swarm test lost a host's task three times in a row
// that way under load, with 6 s start windows and a 10 s pace).
func TestHeldClaimStartsBeforeItsStartBy(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 2}
	l := &fakeLeaser{hold: time.Minute, runner: r, claims: map[string][]error{
		"shop.example": {&LeaseHeld{RetryIn: 300 * time.Millisecond, Err: ErrLeaseHeld}},
	}}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l, ClaimRetry: time.Minute})
	tk := leased("shop.example")
	tk.Lease.Expires = time.Now().Add(20 * time.Second)
	submitTasks(t, h.m, tk)
	eventually(t, "the held task claimed again and done", func() bool {
		return states(t, q)["shop.example"].State == queue.Done
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claimed["shop.example"] != 2 {
		t.Fatalf("%d claims, want 2 (held, then granted)", l.claimed["shop.example"])
	}
}

// watchingRunner is a fakeRunner that reports a fixed activity on every
// host, as a crawler.Crawler reports its own.
type watchingRunner struct {
	*fakeRunner
	activity crawler.HostActivity
}

func (w watchingRunner) HostActivity(host string) crawler.HostActivity {
	if host != "a.example" {
		return crawler.HostActivity{}
	}
	return w.activity
}

// TestRenewalShowsProgress: a renewal shows the pages fetched and, from
// a Runner that tells them, the requests to the host and the wait it
// asked for: what the manager renews a lease on.
func TestRenewalShowsProgress(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := watchingRunner{&fakeRunner{pages: 3, hold: make(chan struct{})}, crawler.HostActivity{Requests: 7, Wait: 3 * time.Second}}
	l := &fakeLeaser{hold: time.Minute, runner: r.fakeRunner}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Leaser: l})
	submitTasks(t, h.m, leased("a.example"))
	eventually(t, "a renewal", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.progress) > 0
	})
	l.mu.Lock()
	p := l.progress[0]
	l.mu.Unlock()
	if want := (Progress{Pages: 1, Requests: 7, Wait: 3 * time.Second}); p != want {
		t.Fatalf("renewal showed %+v, want %+v", p, want)
	}
	r.hold <- struct{}{}
}
