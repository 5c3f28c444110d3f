package storage

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/crawler/crawlertest"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

var quiet = slog.New(slog.DiscardHandler)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// dbTasks is the manager's book of tasks over a real channel database.
type dbTasks struct {
	db  *channels.DB
	now func() time.Time
	// feedback holds, by task ID, the last feedback it was completed with.
	feedback *sync.Map
}

func (d dbTasks) Task(id string) (channels.Task, error) { return d.db.Task(id) }

func (d dbTasks) Complete(_ context.Context, id, peer string, fb channels.Feedback) (channels.Outcome, error) {
	d.feedback.Store(id, fb)
	return d.db.Complete(id, peer, fb, d.now())
}

// rig is a storage module on one libp2p host with its channel database.
type rig struct {
	dir     string
	key     crypto.PrivKey
	db      *channels.DB
	opts    Options // st's
	st      *Storage
	h       *host.Host
	clock   time.Time
	channel string
	// newCheckers makes checkRound's checkers new peers; by default each
	// has a record, as most checkers of a running network do, and its
	// check weighs a whole one.
	newCheckers bool
}

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func newRig(t *testing.T) *rig { t.Helper(); return newRigWith(t, nil) }

// newRigWith is newRig with the storage options changed by opt. With
// HIVECRAWL_TEST_POSTGRES=1 its databases are in PostgreSQL.
func newRigWith(t *testing.T, opt func(*Options)) *rig {
	t.Helper()
	return newRigOn(t, os.Getenv("HIVECRAWL_TEST_POSTGRES") == "1", opt)
}

// newRigOn is newRigWith with the channel database and the index in a
// throwaway PostgreSQL server when postgres is set.
func newRigOn(t *testing.T, postgres bool, opt func(*Options)) *rig {
	t.Helper()
	r := &rig{dir: t.TempDir(), clock: t0, channel: "site.example"}
	var err error
	r.key, _, err = crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	dsn := ""
	if postgres {
		dsn = pgtest.Start(t).DSN
		r.db, err = channels.OpenPostgres(context.Background(), dsn, channels.Options{})
	} else {
		r.db, err = channels.Open(filepath.Join(r.dir, "channels.db"), channels.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.db.Close() })
	if _, err := r.db.AddSeeds([]string{"http://site.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return r.clock }
	opts := Options{Dir: r.dir, Postgres: dsn, Key: r.key, Manager: r.key.GetPublic(), Tasks: dbTasks{r.db, now, new(sync.Map)}, OptOuts: r.db, Now: now, Logger: quiet}
	if opt != nil {
		opt(&opts)
	}
	r.opts = opts
	r.st, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.st.Close() })
	r.h = newHost(t)
	r.st.Attach(r.h)
	return r
}

// issue issues the channel's next round and returns its signed task.
func (r *rig) issue(t *testing.T, round int) (*task.Task, []byte) {
	t.Helper()
	c, err := r.db.Get(r.channel)
	if err != nil {
		t.Fatal(err)
	}
	tk := c.Tasks(round, channels.PagePlan{})[0]
	tk.Issued = r.clock
	env, err := envelope.Seal(tk, r.key)
	if err != nil {
		t.Fatal(err)
	}
	rec := channels.Task{ID: tk.ID, Channel: c.ID, Round: round, Issued: r.clock, Deadline: r.clock.Add(time.Hour)}
	if err := r.db.Issue(c.ID, round, []channels.Task{rec}, r.clock); err != nil {
		t.Fatal(err)
	}
	return tk, env
}

// client returns an uploader on a new host connected to the rig.
func (r *rig) client(t *testing.T) (*upload.Uploader, *host.Host) {
	t.Helper()
	h := newHost(t)
	h.Peerstore().AddAddrs(r.h.ID(), r.h.Addrs(), time.Hour)
	return &upload.Uploader{Host: h, Storage: r.h.ID(), Manager: r.key.GetPublic(), Nickname: "nick-" + h.ID().String()[:6]}, h
}

// delivery writes pages to a spool and returns the delivery of env.
func delivery(t *testing.T, id string, env []byte, pages []*task.Page, inter []string) taskmgr.Delivery {
	t.Helper()
	return taskmgr.Delivery{TaskID: id, Raw: env, Spool: crawlertest.Spool(t, pages),
		Result: &task.Result{TaskID: id, Stats: task.Stats{PagesFetched: len(pages), Dirs: map[string]int{"/": len(pages)}}, InterSite: inter}}
}

func page(u, text string) *task.Page {
	return &task.Page{URL: u, Status: 200, FetchedAt: t0, Digest: task.DigestString(text), Text: []byte(text), TextBytes: len(text), Title: "T " + u}
}

// warcRecords reads every WARC file in dir with gowarc, strictly, and
// returns the records' types and target URIs.
func warcRecords(t *testing.T, dir string) (types []string, targets []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(WARCDir(dir), "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files: %v", err)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := gowarc.NewWarcFileReaderFromStream(f, 0, gowarc.WithStrictValidation())
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, _, v, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := rec.ValidateDigest(v); err != nil || !v.Valid() {
				t.Fatalf("%s: record invalid: %v %v", name, err, v)
			}
			types = append(types, rec.Type().String())
			targets = append(targets, rec.WarcHeader().Get(gowarc.WarcTargetURI))
			rec.Close()
		}
		rd.Close()
		f.Close()
	}
	return types, targets
}
