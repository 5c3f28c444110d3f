package ledger

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/task"
)

var noon = time.Date(2026, 11, 22, 12, 0, 0, 0, time.Local)

func receipt(id string, credits float64, at time.Time) task.Receipt {
	return task.Receipt{TaskID: id, Channel: "example.com", Peer: "12D3KooW", PagesAccepted: 10, PagesNew: 2, PagesChanged: 3, Bytes: 5000, Credits: credits, IssuedAt: at}
}

func open(t *testing.T) (*Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

func TestAddConfirmTotals(t *testing.T) {
	l, _ := open(t)
	adds := []struct {
		name      string
		r         task.Receipt
		confirmed bool
		wantAdded bool
	}{
		{"first confirmed", receipt("t1", 10, noon), true, true},
		{"pending", receipt("t2", 5, noon.Add(time.Hour)), false, true},
		{"next day", receipt("t3", 2, noon.Add(24*time.Hour)), true, true},
		{"duplicate after crash", receipt("t1", 10, noon), true, false},
		{"duplicate pending of confirmed", receipt("t3", 2, noon.Add(24*time.Hour)), false, false},
	}
	for _, a := range adds {
		added, err := l.Add([]byte("signed:"+a.r.TaskID), a.r, a.confirmed, noon)
		if err != nil || added != a.wantAdded {
			t.Fatalf("%s: added %v, %v; want %v", a.name, added, err, a.wantAdded)
		}
	}
	tot, err := l.Totals(noon.Add(48 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if tot.Receipts != 3 || tot.Confirmed != 12 || tot.Pending != 5 || tot.PagesAccepted != 30 || tot.Bytes != 15000 {
		t.Fatalf("totals %+v", tot)
	}
	if err := l.Confirm("t2"); err != nil {
		t.Fatal(err)
	}
	if err := l.Confirm("t2"); err != nil {
		t.Fatal(err)
	}
	// A confirmed copy arriving for a pending receipt confirms it once.
	l.Add(nil, receipt("t4", 1, noon), false, noon)
	l.Add(nil, receipt("t4", 1, noon), true, noon)
	l.Add(nil, receipt("t4", 1, noon), true, noon)
	if err := l.Confirm("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Confirm unknown: %v", err)
	}
	tot, _ = l.Totals(noon.Add(48 * time.Hour))
	if tot.Confirmed != 18 || tot.Pending != 0 || tot.Receipts != 4 {
		t.Fatalf("after confirm: %+v", tot)
	}
	if tot.RecentAverage <= 0 {
		t.Fatalf("no recent average: %+v", tot)
	}
	days, err := l.Days(noon.Add(-24*time.Hour), noon.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0].Date != "2026-11-22" || days[0].Confirmed != 16 || days[0].Receipts != 3 ||
		days[1].Confirmed != 2 || days[0].PagesNew != 6 {
		t.Fatalf("days %+v", days)
	}
	es, err := l.Entries(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Receipt.TaskID != "t3" || string(es[0].Raw) != "signed:t3" || !es[0].Confirmed {
		t.Fatalf("entries %+v", es)
	}
}

func TestRecentAverageMatchesPureAverage(t *testing.T) {
	l, _ := open(t)
	var a Average
	for i := range 30 {
		at := noon.Add(time.Duration(i) * 7 * time.Hour)
		c := float64(i%5 + 1)
		l.Add(nil, receipt(string(rune('a'+i)), c, at), i%3 != 0, noon)
		if i%3 != 0 {
			a.Add(at, c)
		}
	}
	now := noon.Add(15 * 24 * time.Hour)
	tot, _ := l.Totals(now)
	if want := a.PerDay(now); math.Abs(tot.RecentAverage-want) > 1e-9 {
		t.Fatalf("ledger RAC %v, want %v (confirmed only)", tot.RecentAverage, want)
	}
}

func TestPersistsAndRefusesBadReceipts(t *testing.T) {
	l, path := open(t)
	if _, err := l.Add(nil, task.Receipt{Credits: 1}, true, noon); err == nil {
		t.Fatal("receipt without task ID accepted")
	}
	if _, err := l.Add(nil, receipt("neg", -1, noon), true, noon); err == nil {
		t.Fatal("negative credit accepted")
	}
	l.Add([]byte("raw"), receipt("t1", 3, noon), true, noon)
	l.Close()
	l2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	tot, _ := l2.Totals(noon)
	if tot.Confirmed != 3 || tot.Receipts != 1 {
		t.Fatalf("after reopen: %+v", tot)
	}
	if added, _ := l2.Add(nil, receipt("t1", 3, noon), true, noon); added {
		t.Fatal("duplicate counted after reopen")
	}
}

// TestSettle: pending credit moves to confirmed or revoked when the
// storage module's newer receipt says so, once, and only for the same
// credit; a revoked receipt is never confirmed afterwards.
func TestSettle(t *testing.T) {
	l, _ := open(t)
	for _, id := range []string{"ok", "bad", "still"} {
		r := receipt(id, 4, noon)
		r.State = task.CreditPending
		if _, err := l.Add([]byte("pending:"+id), r, false, noon); err != nil {
			t.Fatal(err)
		}
	}
	if ids, err := l.Pending(0); err != nil || len(ids) != 3 {
		t.Fatalf("pending %v, %v", ids, err)
	}
	settle := func(id, state string, credits float64) bool {
		t.Helper()
		r := receipt(id, credits, noon)
		r.State, r.Reason = state, "spot-checked"
		changed, err := l.Settle([]byte(state+":"+id), r)
		if err != nil {
			t.Fatalf("settle %s %s: %v", id, state, err)
		}
		return changed
	}
	if !settle("ok", task.CreditConfirmed, 4) || !settle("bad", task.CreditRevoked, 4) || settle("still", task.CreditPending, 4) {
		t.Fatal("settling changed the wrong entries")
	}
	if settle("ok", task.CreditConfirmed, 4) || settle("bad", task.CreditConfirmed, 4) || settle("nope", task.CreditConfirmed, 4) {
		t.Fatal("a settled or unknown receipt changed again")
	}
	r := receipt("still", 9, noon)
	r.State = task.CreditConfirmed
	if _, err := l.Settle(nil, r); err == nil {
		t.Fatal("a settled receipt granting other credit was accepted")
	}
	l.Add(nil, receipt("bad", 4, noon), true, noon) // a confirmed copy cannot undo a revocation
	tot, err := l.Totals(noon)
	if err != nil || tot.Confirmed != 4 || tot.Pending != 4 || tot.Revoked != 4 || tot.Receipts != 3 {
		t.Fatalf("totals %+v, %v", tot, err)
	}
	days, err := l.Days(noon, noon)
	if err != nil || len(days) != 1 || days[0].Revoked != 4 || days[0].Pending != 4 {
		t.Fatalf("days %+v, %v", days, err)
	}
	if ids, _ := l.Pending(0); len(ids) != 1 || ids[0] != "still" {
		t.Fatalf("pending after settling: %v", ids)
	}
	es, _ := l.Entries(0)
	for _, e := range es {
		if e.Receipt.TaskID == "bad" && (e.State() != task.CreditRevoked || string(e.Raw) != "revoked:bad") {
			t.Fatalf("revoked entry %+v", e)
		}
	}
}

// TestPendingIndexBuiltOnce: a ledger written before the pending index
// existed gets it at its next opening, with its pending receipts only.
func TestPendingIndexBuiltOnce(t *testing.T) {
	l, path := open(t)
	pending := receipt("waits", 2, noon)
	pending.State = task.CreditPending
	l.Add(nil, pending, false, noon)
	l.Add(nil, receipt("done", 3, noon.Add(-time.Hour)), true, noon)
	l.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketPending) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	l, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ids, err := l.Pending(0); err != nil || len(ids) != 1 || ids[0] != "waits" {
		t.Fatalf("pending after rebuilding the index: %v, %v", ids, err)
	}
}

// TestPendingInTurns: asked in turns, every pending receipt comes up,
// however many older ones that will never settle are ahead of it.
func TestPendingInTurns(t *testing.T) {
	l, _ := open(t)
	for i := range 7 {
		r := receipt(fmt.Sprintf("t%d", i), 1, noon.Add(time.Duration(i)*time.Minute))
		r.State = task.CreditPending
		if _, err := l.Add([]byte(r.TaskID), r, false, noon); err != nil {
			t.Fatal(err)
		}
	}
	var (
		after []byte
		asked []string
	)
	for range 3 {
		ids, next, err := l.PendingAfter(after, 3)
		if err != nil {
			t.Fatal(err)
		}
		asked = append(asked, ids...)
		after = next
	}
	want := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t0", "t1"}
	if fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Fatalf("asked %v in three turns of 3; want %v", asked, want)
	}
	if ids, _, _ := l.PendingAfter([]byte("beyond every key"), 0); len(ids) != 7 {
		t.Fatalf("a full round from past the end gave %v; want all 7", ids)
	}
}

// TestSettledToExactlyZero: credit moved out of pending in tenths (a
// checker's 0.1 a page) leaves pending at exactly 0, not a float's
// residue: a volunteer with nothing pending is told so ("Pending −0"
// was the residue shown), and the sums stay exact over many receipts.
func TestSettledToExactlyZero(t *testing.T) {
	l, _ := open(t)
	const n = 37
	credits := []float64{0.1, 0.7, 0.3, 6.01, 0.2}
	for i := range n {
		r := receipt(fmt.Sprint("check-", i), credits[i%len(credits)], noon)
		r.State = task.CreditPending
		if _, err := l.Add([]byte(fmt.Sprint("pending:", i)), r, false, noon); err != nil {
			t.Fatal(err)
		}
	}
	var want float64
	for i := range n {
		r := receipt(fmt.Sprint("check-", i), credits[i%len(credits)], noon)
		r.State = task.CreditConfirmed
		if i%3 == 0 {
			r.State = task.CreditRevoked
		} else {
			want += r.Credits
		}
		if _, err := l.Settle([]byte(fmt.Sprint("settled:", i)), r); err != nil {
			t.Fatal(err)
		}
	}
	tot, err := l.Totals(noon)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Pending != 0 || math.Abs(tot.Confirmed-want) > 1e-9 {
		t.Fatalf("totals %+v after settling every receipt: want pending exactly 0, confirmed %v", tot, want)
	}
	days, err := l.Days(noon, noon)
	if err != nil || len(days) != 1 || days[0].Pending != 0 {
		t.Fatalf("days %+v, %v: want the day's pending exactly 0", days, err)
	}
}
