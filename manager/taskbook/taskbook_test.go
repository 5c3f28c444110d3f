package taskbook

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/channels/channelstest"
	"github.com/hivecrawl/hivecrawl/manager/rounds"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/task"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

var lt = channels.LeaseTimes{Hold: 5 * time.Minute, StartWithin: 30 * time.Minute, Skew: time.Minute, Gap: time.Second}

// tally counts what the book tells its metrics.
type tally struct{ completed, cancelled, lost, checks int }

func (c *tally) Completed(channels.Task, channels.Feedback) { c.completed++ }
func (c *tally) Cancelled(channels.Task, string)            { c.cancelled++ }
func (c *tally) Lost(channels.Task)                         { c.lost++ }
func (c *tally) CheckIssued()                               { c.checks++ }

type fixture struct {
	db       *channels.DB
	book     *Book
	counts   *tally
	key      crypto.PrivKey
	rec      channels.Task // the channel's task, granted and claimed by holder
	env      []byte        // its envelope, as the manager signs it
	holder   peer.ID
	forfeits []string
}

// newFixture opens a channel database on disk with one channel whose
// task is granted and claimed by a volunteer, and a book over it that
// counts lost tasks from countFrom on.
func newFixture(t *testing.T, countFrom time.Time) *fixture {
	t.Helper()
	db := channelstest.Open(t)
	key, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	hkey, _, _ := crypto.GenerateEd25519Key(nil)
	holder, _ := peer.IDFromPrivateKey(hkey)
	f := &fixture{db: db, counts: &tally{}, key: key, holder: holder}
	sched, err := rounds.New(db, rounds.Options{Strategy: rounds.StrategyIIR}, t0)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.book = New(Config{DB: db, Schedule: sched, Key: key.GetPublic(), Delay: time.Second, Slack: time.Minute,
		ClockSkew: lt.Skew, CountFrom: countFrom, Counts: f.counts, Now: func() time.Time { return t0 }, Logger: quiet,
		Forfeit: func(p, why string) error { f.forfeits = append(f.forfeits, p); return nil }})

	if _, err := db.AddSeeds([]string{"http://h.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	c, err := db.Get("h.example")
	if err != nil {
		t.Fatal(err)
	}
	spec := c.Tasks(1, channels.PagePlan{})[0]
	raw, err := spec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	rec := channels.Task{ID: spec.ID, Channel: c.ID, Round: 1, Issued: t0, Deadline: t0.Add(time.Hour), Spec: raw, Host: spec.Host()}
	if err := db.Issue(c.ID, 1, []channels.Task{rec}, t0); err != nil {
		t.Fatal(err)
	}
	g, ok, err := db.Grant(rec.ID, t0, lt)
	if err != nil || !ok {
		t.Fatalf("grant: ok %v, %v", ok, err)
	}
	spec.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: t0.Add(lt.Hold)}
	if f.env, err = envelope.Seal(spec, key); err != nil {
		t.Fatal(err)
	}
	if err := db.Signed(rec.ID, f.env); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkSent(rec.ID, holder.String()); err != nil {
		t.Fatal(err)
	}
	if f.rec, err = db.Claim(rec.ID, g.Epoch, holder.String(), t0, lt); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) state(t *testing.T) string {
	t.Helper()
	tk, err := f.db.Task(f.rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return tk.State
}

// TestReportCountsOnlyTheHoldersSignedTask: a cancellation report counts
// only with an envelope the manager signed, from the peer holding the
// task's lease, once; the others change nothing.
func TestReportCountsOnlyTheHoldersSignedTask(t *testing.T) {
	f := newFixture(t, t0)
	ctx := context.Background()
	spec, err := envelope.Open(f.env, f.key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := crypto.GenerateEd25519Key(nil)
	forged, err := envelope.Seal(spec, other)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := f.book.Report(ctx, f.holder, report.Report{Task: forged, Reason: report.Expired}); ok || err == nil {
		t.Errorf("a report on an envelope another key signed: counted %v, err %v; want refused", ok, err)
	}
	okey, _, _ := crypto.GenerateEd25519Key(nil)
	stranger, _ := peer.IDFromPrivateKey(okey)
	if ok, err := f.book.Report(ctx, stranger, report.Report{Task: f.env, Reason: report.Expired}); ok {
		t.Errorf("a report by a peer not holding the lease was counted (err %v)", err)
	}
	if s := f.state(t); s != channels.TaskOpen || f.counts.cancelled != 0 {
		t.Fatalf("after refused reports: task %s, %d cancellations counted; want open, 0", s, f.counts.cancelled)
	}
	if ok, err := f.book.Report(ctx, f.holder, report.Report{Task: f.env, Reason: report.Expired}); !ok || err != nil {
		t.Fatalf("the holder's report: counted %v, %v; want counted", ok, err)
	}
	if ok, _ := f.book.Report(ctx, f.holder, report.Report{Task: f.env, Reason: report.Expired}); ok {
		t.Error("the same report counted twice")
	}
	if s := f.state(t); s != channels.TaskCancelled || f.counts.cancelled != 1 {
		t.Fatalf("after the holder's report: task %s, %d cancellations counted; want cancelled, 1", s, f.counts.cancelled)
	}
}

// TestExpireWaitsOutTheGraceAndCostsTheHolder: no task counts lost before
// Config.CountFrom, however late; after it, a task whose lease lapsed
// without a result is lost once, and its holder forfeits its standing.
func TestExpireWaitsOutTheGraceAndCostsTheHolder(t *testing.T) {
	late := t0.Add(lt.Hold + lt.Skew + time.Hour)
	f := newFixture(t, late)
	if err := f.book.Expire(late.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := f.state(t); s != channels.TaskOpen || f.counts.lost != 0 {
		t.Fatalf("within the restart grace: task %s, %d lost; want open, 0", s, f.counts.lost)
	}
	for range 2 {
		if err := f.book.Expire(late); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.state(t); s != channels.TaskFailed || f.counts.lost != 1 {
		t.Fatalf("after the grace: task %s, %d lost; want lost, 1", s, f.counts.lost)
	}
	if len(f.forfeits) != 1 || f.forfeits[0] != f.holder.String() {
		t.Fatalf("forfeits %v; want the holder's once", f.forfeits)
	}
}

// TestIssueCheckRecordsACheckOfTheTask: a spot-check is a task of its
// own on the checked task's host, naming it, with the peers to avoid,
// pinned to the checker it is aimed at.
func TestIssueCheckRecordsACheckOfTheTask(t *testing.T) {
	f := newFixture(t, t0)
	id, err := f.book.IssueCheck(context.Background(), f.rec.ID, []string{"http://h.example/a"}, []string{f.holder.String()})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.db.Task(id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Checks != f.rec.ID || rec.Host != f.rec.Host || len(rec.Avoid) != 1 || rec.Avoid[0] != f.holder.String() || f.counts.checks != 1 {
		t.Fatalf("check %+v (counted %d); want a check of %s on %s avoiding the holder", rec, f.counts.checks, f.rec.ID, f.rec.Host)
	}
	if spec, err := task.Decode(rec.Spec); err != nil || !spec.Pinned {
		t.Fatalf("the check's task: %+v, %v; want it pinned", spec, err)
	}
	if _, err := f.book.IssueCheck(context.Background(), "no-such-task", []string{"http://h.example/a"}, nil); err == nil {
		t.Error("a check of a task never issued was issued")
	}
}
