package queue

import (
	"testing"
	"time"
)

// TestSeen records task IDs in the seen set: each is new once, seen after,
// also after the file is reopened, and forgotten once its expiry passed.
func TestSeen(t *testing.T) {
	q, path := openTemp(t, Options{})
	hour := t0.Add(time.Hour)
	steps := []struct {
		name    string
		id      string
		expires time.Time
		now     time.Time
		want    bool
	}{
		{"first sight", "a", hour, t0, false},
		{"second sight", "a", hour, t0, true},
		{"another task", "b", t0.Add(time.Minute), t0, false},
		{"an earlier expiry does not shorten the record", "a", t0.Add(time.Second), t0, true},
		{"b forgotten after its expiry", "b", hour, t0.Add(2 * time.Minute), false},
		{"a kept until its expiry", "a", hour, hour.Add(-time.Nanosecond), true},
		{"a forgotten after", "a", hour, hour.Add(time.Second), false},
		{"an expiry before 1970 is recorded", "old", time.Unix(-5, 0), hour, false},
		{"and pruned by the next", "c", hour.Add(time.Hour), hour, false},
	}
	for _, s := range steps {
		got, err := q.Seen(s.id, s.expires, s.now)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got != s.want {
			t.Fatalf("%s: Seen(%s) = %v, want %v", s.name, s.id, got, s.want)
		}
	}
	if n, err := q.SeenCount(); err != nil || n != 2 {
		t.Fatalf("SeenCount = %d, %v; want 2 (a until the hour, c)", n, err)
	}

	// Reopened, the file still knows c; a's expiry has passed by then.
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	now := hour.Add(2 * time.Second)
	if seen, err := q2.Seen("c", hour.Add(time.Hour), now); err != nil || !seen {
		t.Fatalf("after reopening, Seen(c) = %v, %v; want seen", seen, err)
	}
	if seen, err := q2.Seen("a", hour.Add(time.Hour), now); err != nil || seen {
		t.Fatalf("after reopening, Seen(a) = %v, %v; want forgotten after its expiry", seen, err)
	}
}

// TestSeenKeepsTasksApart: the seen set is not the task list; a task seen
// is not queued, and queueing a task does not record it as seen.
func TestSeenKeepsTasksApart(t *testing.T) {
	q, _ := openTemp(t, Options{})
	enqueue(t, q, "queued")
	if seen, err := q.Seen("queued", t0.Add(time.Hour), t0); err != nil || seen {
		t.Fatalf("Seen(queued) = %v, %v; want a first sight", seen, err)
	}
	if _, err := q.Seen("only-seen", t0.Add(time.Hour), t0); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(); err != nil || n != 1 {
		t.Fatalf("Len = %d, %v; want 1", n, err)
	}
}

// TestSeenReadOnly: a file opened for inspection records nothing.
func TestSeenReadOnly(t *testing.T) {
	q, path := openTemp(t, Options{})
	if _, err := q.Seen("a", t0.Add(time.Hour), t0); err != nil {
		t.Fatal(err)
	}
	q.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Seen("b", t0.Add(time.Hour), t0); err == nil {
		t.Fatal("Seen on a read-only queue succeeded")
	}
	if n, err := ro.SeenCount(); err != nil || n != 1 {
		t.Fatalf("SeenCount read-only = %d, %v; want 1", n, err)
	}
}
