package queue

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/task"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newTask(id string, interval time.Duration) *task.Task {
	return &task.Task{ID: id, Channel: id + ".example", Seeds: []string{"http://" + id + ".example/"}, Interval: task.Duration(interval)}
}

func openTemp(t *testing.T, opts Options) (*Queue, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queue.db")
	q, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q, path
}

func enqueue(t *testing.T, q *Queue, ids ...string) {
	t.Helper()
	for _, id := range ids {
		tk := newTask(id, 0)
		raw, _ := tk.Encode()
		if err := q.Enqueue(raw, nil, tk, t0); err != nil {
			t.Fatalf("enqueue %s: %v", id, err)
		}
	}
}

func next(t *testing.T, q *Queue, now time.Time) *Record {
	t.Helper()
	r, _, err := q.Next(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ids(rs []*Record) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.ID)
	}
	return strings.Join(s, ",")
}

func TestEnqueue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxLen  int
		prior   []string // enqueued first
		take    int      // tasks taken (running) before the enqueue
		id      string
		wantErr error
	}{
		{name: "empty queue", maxLen: 2, id: "a"},
		{name: "full", maxLen: 2, prior: []string{"a", "b"}, id: "c", wantErr: ErrFull},
		{name: "running tasks do not count", maxLen: 2, prior: []string{"a", "b"}, take: 1, id: "c"},
		{name: "duplicate queued", maxLen: 5, prior: []string{"a"}, id: "a", wantErr: ErrDuplicate},
		{name: "duplicate running", maxLen: 5, prior: []string{"a"}, take: 1, id: "a", wantErr: ErrDuplicate},
		{name: "duplicate wins over full", maxLen: 1, prior: []string{"a"}, id: "a", wantErr: ErrDuplicate},
		{name: "default length 5", prior: []string{"a", "b", "c", "d", "e"}, id: "f", wantErr: ErrFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := openTemp(t, Options{MaxLen: tc.maxLen})
			enqueue(t, q, tc.prior...)
			for range tc.take {
				next(t, q, t0)
			}
			tk := newTask(tc.id, 0)
			raw, _ := tk.Encode()
			err := q.Enqueue(raw, nil, tk, t0)
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("Enqueue = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestEnqueueNextLeaseReplacesWaitingCopy: a task sent again under the
// host's next lease takes the place of its waiting copy, whose lease it
// could never claim; an earlier or the same epoch, or a copy already
// running, is a duplicate.
func TestEnqueueNextLeaseReplacesWaitingCopy(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 1})
	withEpoch := func(id string, epoch uint64) (*task.Task, []byte) {
		tk := newTask(id, 0)
		tk.Lease = task.Lease{Host: id + ".example", Epoch: epoch, Expires: t0.Add(time.Hour)}
		raw, _ := tk.Encode()
		return tk, raw
	}
	tk, raw := withEpoch("a", 1)
	if err := q.Enqueue(raw, []byte("proof 1"), tk, t0); err != nil {
		t.Fatal(err)
	}
	for _, epoch := range []uint64{1, 0} {
		tk, raw := withEpoch("a", epoch)
		if err := q.Enqueue(raw, nil, tk, t0); !errors.Is(err, ErrDuplicate) {
			t.Fatalf("epoch %d over a waiting epoch 1: %v, want ErrDuplicate", epoch, err)
		}
	}
	tk, raw = withEpoch("a", 2)
	if err := q.Enqueue(raw, []byte("proof 2"), tk, t0); err != nil {
		t.Fatalf("epoch 2 over a waiting epoch 1 (queue full with it): %v", err)
	}
	r := next(t, q, t0)
	if r == nil || r.Task.Lease.Epoch != 2 || string(r.Raw) != string(raw) || string(r.Proof) != "proof 2" {
		t.Fatalf("taken %+v, want the epoch 2 copy with its proof (a hand-off names the epoch)", r)
	}
	if r := next(t, q, t0); r != nil {
		t.Fatalf("a second copy was queued: %s", r.ID)
	}
	tk, raw = withEpoch("a", 3)
	if err := q.Enqueue(raw, nil, tk, t0); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("epoch 3 over a running epoch 2: %v, want ErrDuplicate", err)
	}
}

func TestSetMaxLen(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 1})
	enqueue(t, q, "a")
	q.SetMaxLen(2)
	enqueue(t, q, "b")
	q.SetMaxLen(1)
	if err := q.Enqueue(nil, nil, newTask("c", 0), t0); !errors.Is(err, ErrFull) {
		t.Fatalf("Enqueue after lowering the maximum = %v, want ErrFull", err)
	}
	if n, _ := q.Len(); n != 2 {
		t.Fatalf("queue length %d, want the 2 already queued", n)
	}
}

func TestEnqueueRejectsInvalidTask(t *testing.T) {
	q, _ := openTemp(t, Options{})
	if err := q.Enqueue(nil, nil, &task.Task{ID: "x"}, t0); !errors.Is(err, task.ErrInvalid) {
		t.Fatalf("Enqueue(no seeds) = %v, want task.ErrInvalid", err)
	}
}

func TestFIFO(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "c", "a", "b")
	enqueue(t, q, "z")
	var got []string
	for r := next(t, q, t0); r != nil; r = next(t, q, t0) {
		if r.State != Running || r.Attempts != 1 {
			t.Fatalf("taken task %s: state %s attempts %d", r.ID, r.State, r.Attempts)
		}
		got = append(got, r.ID)
	}
	if s := strings.Join(got, ","); s != "c,a,b,z" {
		t.Fatalf("order %s, want c,a,b,z", s)
	}
}

// TestRawBytesKept: the envelope and the claim's proof come back as
// given, after a restart too.
func TestRawBytesKept(t *testing.T) {
	q, path := openTemp(t, Options{})
	raw, proof := []byte("signed-envelope\x00\xff"), []byte("proof\x00\x01")
	if err := q.Enqueue(raw, proof, newTask("a", 0), t0); err != nil {
		t.Fatal(err)
	}
	q.Close()
	q, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	r := next(t, q, t0)
	if string(r.Raw) != string(raw) || string(r.Proof) != string(proof) || r.Task.Channel != "a.example" {
		t.Fatalf("record %q, %q / %+v, want raw bytes, proof and decoded task back", r.Raw, r.Proof, r.Task)
	}
}

func TestIntervalCancel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		interval    time.Duration
		wait        time.Duration
		wantExpired bool
	}{
		{name: "within interval", interval: time.Hour, wait: 59 * time.Minute},
		{name: "exactly the interval", interval: time.Hour, wait: time.Hour},
		{name: "past interval", interval: time.Hour, wait: time.Hour + time.Second, wantExpired: true},
		{name: "no interval never expires", interval: 0, wait: 1000 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := openTemp(t, Options{})
			tk := newTask("a", tc.interval)
			if err := q.Enqueue(nil, nil, tk, t0); err != nil {
				t.Fatal(err)
			}
			enqueue(t, q, "b")
			r, expired, err := q.Next(t0.Add(tc.wait), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantExpired {
				if len(expired) != 1 || expired[0].ID != "a" || expired[0].Reason != ReasonExpired || r.ID != "b" {
					t.Fatalf("Next = %v, expired %v; want b after cancelling a", r, expired)
				}
				got, _ := q.Get("a")
				if got.State != Cancelled || got.Reason != ReasonExpired {
					t.Fatalf("stored a: %s %q", got.State, got.Reason)
				}
				return
			}
			if len(expired) != 0 || r.ID != "a" {
				t.Fatalf("Next = %s, expired %v; want a", r.ID, ids(expired))
			}
		})
	}
}

func TestCrashRecovery(t *testing.T) {
	q, path := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c", "d")
	a := next(t, q, t0)
	b := next(t, q, t0)
	if err := q.Finish(a.ID, &task.Result{TaskID: a.ID}, "/spool/a", t0); err != nil {
		t.Fatal(err)
	}
	// b is running when the process "dies": close without finishing it.
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q2, err := Open(path, Options{MaxLen: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	w, err := q2.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(w); got != "b,c,d" {
		t.Fatalf("queue after restart %s, want b,c,d (b back in its place)", got)
	}
	r := next(t, q2, t0)
	if r.ID != b.ID || r.Attempts != 2 {
		t.Fatalf("re-executed %s attempts %d, want b attempts 2", r.ID, r.Attempts)
	}
	up, err := q2.Uploads()
	if err != nil || ids(up) != "a" || up[0].Spool != "/spool/a" {
		t.Fatalf("uploads after restart %v %v, want a with its spool", ids(up), err)
	}
}

func TestReadOnly(t *testing.T) {
	q, path := openTemp(t, Options{})
	enqueue(t, q, "a", "b")
	next(t, q, t0)
	q.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if a, _ := ro.Get("a"); a.State != Running {
		t.Fatalf("read-only open changed a running task to %s", a.State)
	}
	if err := ro.Cancel("b", "x", t0); err == nil {
		t.Fatal("change succeeded on a read-only queue")
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	if _, err := Open(missing, Options{ReadOnly: true}); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("read-only open of a missing file: %v, want not-exist, not damaged", err)
	}
}

func TestUploadStates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		steps   func(q *Queue) error
		wantErr error
	}{
		{name: "finish, deliver, record", steps: func(q *Queue) error {
			if err := q.Finish("a", &task.Result{}, "s", t0); err != nil {
				return err
			}
			if err := q.Delivered("a", []byte("rcpt")); err != nil {
				return err
			}
			return q.Recorded("a")
		}},
		{name: "record before delivery", wantErr: ErrState, steps: func(q *Queue) error {
			if err := q.Finish("a", &task.Result{}, "s", t0); err != nil {
				return err
			}
			return q.Recorded("a")
		}},
		{name: "deliver twice", wantErr: ErrState, steps: func(q *Queue) error {
			if err := q.Finish("a", &task.Result{}, "s", t0); err != nil {
				return err
			}
			if err := q.Delivered("a", []byte("r")); err != nil {
				return err
			}
			return q.Delivered("a", []byte("r"))
		}},
		{name: "finish after handover", wantErr: ErrState, steps: func(q *Queue) error {
			if _, _, err := q.Handover(t0); err != nil {
				return err
			}
			return q.Finish("a", &task.Result{}, "s", t0)
		}},
		{name: "finish cancelled", wantErr: ErrState, steps: func(q *Queue) error {
			if err := q.Cancel("a", "crawl failed", t0); err != nil {
				return err
			}
			return q.Finish("a", &task.Result{}, "s", t0)
		}},
		{name: "unknown task", wantErr: ErrNotFound, steps: func(q *Queue) error {
			return q.Finish("nope", &task.Result{}, "s", t0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := openTemp(t, Options{})
			enqueue(t, q, "a")
			next(t, q, t0)
			err := tc.steps(q)
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestRecordedReceiptKept(t *testing.T) {
	q, _ := openTemp(t, Options{})
	tk := newTask("a", 0)
	tk.KnownPages = []task.Digest{1, 2, 3}
	tk.KnownFilter = task.NewFilter(1000, 0.01)
	raw, _ := tk.Encode()
	if err := q.Enqueue(raw, nil, tk, t0); err != nil {
		t.Fatal(err)
	}
	next(t, q, t0)
	if err := q.Finish("a", &task.Result{TaskID: "a", Stats: task.Stats{PagesFetched: 7}}, "s", t0); err != nil {
		t.Fatal(err)
	}
	if err := q.Delivered("a", []byte("rcpt")); err != nil {
		t.Fatal(err)
	}
	if up, _ := q.Uploads(); ids(up) != "a" {
		t.Fatalf("delivered but unrecorded task not in Uploads: %q", ids(up))
	}
	if err := q.Recorded("a"); err != nil {
		t.Fatal(err)
	}
	r, err := q.Get("a")
	if err != nil || string(r.Receipt) != "rcpt" || r.Upload != UploadRecorded || r.Spool != "" || r.Result.Stats.PagesFetched != 7 {
		t.Fatalf("record %+v %v", r, err)
	}
	if r.Raw != nil || r.Task.KnownPages != nil || r.Task.KnownFilter != nil || r.Task.ID != "a" {
		t.Fatalf("recorded task keeps %d raw bytes and %d digests", len(r.Raw), len(r.Task.KnownPages))
	}
	if up, _ := q.Uploads(); len(up) != 0 {
		t.Fatalf("uploads left: %s", ids(up))
	}
}

func TestHandover(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c", "d")
	next(t, q, t0) // a running
	next(t, q, t0) // b running
	if err := q.Finish("a", &task.Result{}, "s", t0); err != nil {
		t.Fatal(err)
	}
	running, queued, err := q.Handover(t0)
	if err != nil {
		t.Fatal(err)
	}
	if ids(running) != "b" || ids(queued) != "c,d" {
		t.Fatalf("handed over running %s, queued %s; want b, then c,d in queue order", ids(running), ids(queued))
	}
	got := append(running, queued...)
	if ids(got) != "b,c,d" {
		t.Fatalf("handed over %s, want b,c,d (running first, then queue order)", ids(got))
	}
	for _, id := range []string{"b", "c", "d"} {
		if r, _ := q.Get(id); r.State != HandedOver {
			t.Fatalf("%s is %s after handover", id, r.State)
		}
	}
	if n, _ := q.Len(); n != 0 {
		t.Fatalf("queue length %d after handover", n)
	}
	if r := next(t, q, t0); r != nil {
		t.Fatalf("Next after handover returned %s", r.ID)
	}
	if a, _ := q.Get("a"); a.State != Done {
		t.Fatalf("done task changed by handover: %s", a.State)
	}
}

func TestPrune(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "done", "cancelled", "pending", "queued")
	next(t, q, t0)
	next(t, q, t0)
	next(t, q, t0)
	q.Finish("done", &task.Result{}, "s", t0)
	q.Delivered("done", nil)
	q.Recorded("done")
	q.Cancel("cancelled", "x", t0)
	q.Finish("pending", &task.Result{}, "s", t0)
	n, err := q.Prune(t0.Add(time.Second))
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want 2", n, err)
	}
	left, _ := q.Select(func(*Record) bool { return true })
	if ids(left) != "pending,queued" {
		t.Fatalf("left %s", ids(left))
	}
	enqueue(t, q, "done") // its ID is free again
}

// damagedQueue makes a queue file with tasks and damages it in one of the
// ways files get damaged. Tests run as root, so a directory in place of the
// file stands for one that cannot be read.
var queueDamages = []struct {
	name    string
	prepare func(t *testing.T, path string)
}{
	{"garbage file", func(t *testing.T, path string) {
		os.WriteFile(path, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o600)
	}},
	{"three bytes", func(t *testing.T, path string) {
		os.WriteFile(path, []byte{0, 1, 2}, 0o600)
	}},
	{"truncated to half", func(t *testing.T, path string) {
		fullQueue(t, path)
		info, _ := os.Stat(path)
		os.Truncate(path, info.Size()/2)
	}},
	{"garbage in the middle", func(t *testing.T, path string) {
		fullQueue(t, path)
		f, _ := os.OpenFile(path, os.O_RDWR, 0)
		defer f.Close()
		info, _ := f.Stat()
		f.WriteAt(bytes.Repeat([]byte{0x5A}, 4096*8), info.Size()/2)
	}},
	{"zero length", func(t *testing.T, path string) {
		fullQueue(t, path)
		os.Truncate(path, 0)
	}},
	{"directory in its place", func(t *testing.T, path string) {
		os.Mkdir(path, 0o700)
	}},
	{"damaged record", func(t *testing.T, path string) {
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		db.Update(func(tx *bolt.Tx) error {
			b, _ := tx.CreateBucketIfNotExists(tasksBucket)
			return b.Put([]byte("a"), []byte("{not json"))
		})
		db.Close()
	}},
}

// fullQueue writes a queue file of many pages.
func fullQueue(t *testing.T, path string) {
	t.Helper()
	q, err := Open(path, Options{MaxLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		enqueue(t, q, fmt.Sprintf("task-%03d-%s", i, strings.Repeat("x", 100)))
	}
	q.Close()
}

// TestOpenDamaged: a damaged queue file is moved aside with one log line
// naming it, and the queue starts empty; opened read-only it is refused.
func TestOpenDamaged(t *testing.T) {
	for _, tc := range queueDamages {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "queue.db")
			tc.prepare(t, path)
			if q, err := Open(path, Options{ReadOnly: true}); err == nil {
				q.Close()
				t.Error("read-only Open of a damaged file succeeded")
			} else if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Errorf("read-only Open error %q: want ErrCorrupt naming the file", err)
			}
			var logged bytes.Buffer
			q, err := Open(path, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer q.Close()
			if n, _ := q.Len(); n != 0 {
				t.Errorf("new queue holds %d tasks", n)
			}
			aside, _ := filepath.Glob(path + ".broken-*")
			if len(aside) != 1 {
				t.Errorf("moved aside: %v, want one file", aside)
			}
			if n := strings.Count(logged.String(), "\n"); n != 1 || !strings.Contains(logged.String(), path) {
				t.Errorf("log %q: want one line naming the file", logged.String())
			}
		})
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	q, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	_, err = Open(path, Options{LockTimeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open error %v should say locked and name the file", err)
	}
	if aside, _ := filepath.Glob(path + ".broken-*"); len(aside) != 0 {
		t.Fatalf("a locked file was moved aside: %v", aside)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	good, _ := encodeRecord(&Record{ID: "a", Task: newTask("a", time.Hour), State: Queued, Raw: []byte{1, 2}})
	f.Add([]byte("a"), good)
	f.Add([]byte("a"), []byte(`{"id":"a","task":{},"state":"bogus"}`))
	f.Add([]byte("b"), []byte(`{"id":"a"}`))
	f.Fuzz(func(t *testing.T, key, b []byte) {
		r, err := decodeRecord(key, b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if r.Task == nil || r.ID != string(key) {
			t.Fatalf("accepted record %+v for key %q", r, key)
		}
		r.expired(t0) // must not panic
		if _, err := encodeRecord(r); err != nil {
			t.Fatalf("accepted record does not encode: %v", err)
		}
	})
}

// crash ends q the way a killed process does: the file is closed without
// the queue being marked closed.
func crash(t *testing.T, q *Queue) {
	t.Helper()
	if err := q.db.Close(); err != nil {
		t.Fatal(err)
	}
}

// A task running at each of MaxCrashes crashes in a row is set aside with
// its reason; a graceful close in between counts nothing.
func TestCrashLoopSetsTaskAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	opts := Options{MaxLen: 10, MaxCrashes: 3, Now: func() time.Time { return t0 }}
	q, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, "a", "b")
	next(t, q, t0) // a runs
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if q, err = Open(path, opts); err != nil {
			t.Fatal(err)
		}
		r, err := q.Get("a")
		if err != nil {
			t.Fatal(err)
		}
		if r.Crashes != i-1 {
			t.Fatalf("open %d: a has %d crashes, want %d (a graceful close is not a crash)", i, r.Crashes, i-1)
		}
		if r.State != Queued {
			t.Fatalf("open %d: a is %s, want queued again", i, r.State)
		}
		if got := next(t, q, t0); got.ID != "a" {
			t.Fatalf("open %d: ran %s, want a", i, got.ID)
		}
		crash(t, q)
	}
	q, err = Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	r, err := q.Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != SetAside || r.Crashes != 3 || !strings.Contains(r.Reason, "3 times") {
		t.Fatalf("after 3 crashes a is %s with %d crashes (%q), want set aside after 3", r.State, r.Crashes, r.Reason)
	}
	if w, _ := q.Waiting(); ids(w) != "b" {
		t.Errorf("waiting %s, want only b", ids(w))
	}
	if aside, err := q.SetAside(); err != nil || ids(aside) != "a" {
		t.Errorf("set aside %s (%v), want a", ids(aside), err)
	}
	// b never ran during a crash: it is untouched.
	if b, _ := q.Get("b"); b.Crashes != 0 {
		t.Errorf("b has %d crashes", b.Crashes)
	}
}

// Only crashes in a row while processing a page, no further in the task
// than the last, set a task aside: a kill at a random moment tells
// nothing, a death already counted is not counted again, and getting
// further starts the count again.
func TestCrashCountNeedsDyingInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	var at Reach
	opts := Options{MaxLen: 10, MaxCrashes: 3, Now: func() time.Time { return t0 }, Reached: func(*Record) Reach { return at }}
	q, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, "a")
	clock := 0
	life := func(pages int, dying, rewritten bool) *Record {
		t.Helper()
		next(t, q, t0)
		if rewritten {
			clock++
		}
		at = Reach{Pages: pages, Dying: dying, Written: t0.Add(MinCrashLife + time.Duration(clock)*time.Second)}
		crash(t, q)
		if q, err = Open(path, opts); err != nil {
			t.Fatal(err)
		}
		rec, err := q.Get("a")
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	steps := []struct {
		pages            int
		dying, rewritten bool
		crashes          int
	}{
		{0, false, true, 0}, // killed while waiting
		{0, true, true, 1},  // died processing the first page
		{0, true, false, 1}, // killed before the task restarted: the same death
		{0, false, true, 1}, // killed at random: nothing learnt
		{0, true, true, 2},  // died there again
		{4, true, true, 1},  // further than ever: a new place
		{4, false, true, 1},
		{4, true, true, 2},
	}
	for i, s := range steps {
		if r := life(s.pages, s.dying, s.rewritten); r.State != Queued || r.Crashes != s.crashes {
			t.Fatalf("life %d (%+v): %s with %d crashes, want queued with %d", i+1, s, r.State, r.Crashes, s.crashes)
		}
	}
	defer q.Close()
	// Dying within MinCrashLife of the task's start counts nothing.
	next(t, q, t0)
	at = Reach{Pages: 4, Dying: true, Written: t0.Add(MinCrashLife / 2)}
	crash(t, q)
	if q, err = Open(path, opts); err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Get("a"); r.Crashes != 2 {
		t.Fatalf("a death a moment after the start counted: %d crashes", r.Crashes)
	}
	if r := life(3, true, true); r.State != SetAside || r.Crashes != 3 { // a checkpoint behind, no further
		t.Fatalf("after a third crash in place: %s, %d crashes; want set aside", r.State, r.Crashes)
	}
}

// TestNextOnEmptyQueueWritesNothing: an idle client asks for the next task
// every few seconds; an empty queue must not cost a write and a sync.
func TestNextOnEmptyQueueWritesNothing(t *testing.T) {
	q, _ := openTemp(t, Options{})
	writes := func() int64 { st := q.db.Stats(); return st.TxStats.GetWrite() }
	before := writes()
	for range 3 {
		if r := next(t, q, t0); r != nil {
			t.Fatalf("empty queue gave %s", r.ID)
		}
	}
	if w := writes() - before; w != 0 {
		t.Fatalf("Next on an empty queue wrote %d pages", w)
	}
	enqueue(t, q, "a")
	if r := next(t, q, t0); r == nil || r.ID != "a" {
		t.Fatalf("next after an enqueue: %+v", r)
	}
}
