package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/proto/upload"
)

// Tasks is the manager's book of issued tasks, as the storage module needs
// it. The manager implements it over its channel database and strategy.
type Tasks interface {
	// Task returns the record of an issued task (channels.ErrNotFound if
	// it was never issued).
	Task(id string) (channels.Task, error)
	// Complete records peer's result for task id; it reports whether this
	// was the task's first result and which peer's result was kept.
	Complete(ctx context.Context, id, peer string, fb channels.Feedback) (channels.Outcome, error)
}

// Options configure a Storage.
type Options struct {
	// Dir is the manager's data directory: WARC files go to Dir/warc, the
	// index to Dir/storage.db.
	Dir string
	// Postgres, when set, is the PostgreSQL database (a postgres:// URL)
	// that holds the index instead of Dir/storage.db, shared by the
	// managers of one network.
	Postgres string
	// Key signs receipts; Manager verifies tasks. In a Hivecrawl network
	// both are the manager's key.
	Key     crypto.PrivKey
	Manager crypto.PubKey
	Tasks   Tasks
	// MaxFileSize rotates WARC files. Default 1 GiB.
	MaxFileSize int64
	// Concurrent bounds the uploads read and stored at once (each is
	// spooled to a file of up to MaxUploadBytes). Default 4.
	Concurrent int
	// Timeout bounds one upload. Default 5 minutes.
	Timeout time.Duration
	// BusyWait is how long an upload waits for one of the Concurrent
	// slots before it is turned away. Default DefaultBusyWait.
	BusyWait time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
	// Validation, when set, spot-checks results (see Validation); without
	// it every result's credit is confirmed at once.
	Validation *Validation
	// Search, when set, indexes the text of every page stored, for
	// full-text search (solo mode). Its failures are logged, not fatal:
	// the WARC files are the record.
	Search *search.Index
	// Archive, when set, is the object store closed WARC files and their
	// CDXJ indexes are uploaded to (warc/NAME and cdxj/NAME.cdxj); a file
	// is removed from Dir/warc once the store has confirmed it. Nil keeps
	// the files in Dir/warc.
	Archive Archive
	// RetryWait is the first wait after a failed upload to Archive,
	// doubling up to 5 minutes. Default 1s.
	RetryWait time.Duration
	// CloseTimeout bounds how long Close uploads the files left. Default
	// 1 minute; what is not uploaded by then is at the next start.
	CloseTimeout time.Duration
	// Admit, when set, admits the store of each upload received against
	// a memory budget (the client's memory cap, in solo mode), as page
	// parses are: the store waits until its cost (storeCost) fits.
	Admit Admitter
	// StoreRaw writes the raw responses crawlers upload (task.Page.Raw,
	// sent when the task asks for them) as WARC response records before
	// the pages' conversion records; without it they are dropped.
	StoreRaw bool
	// OptOuts, when set, names the hosts that opted out of the crawler:
	// an upload of a task on one is refused, whenever it was crawled.
	OptOuts OptOuts
}

// OptOuts says which web hosts asked not to be crawled; the manager's
// channel database is one.
type OptOuts interface {
	OptedOut(host string) (channels.OptOut, bool, error)
}

// Admitter admits work against a shared memory budget: Admit blocks until
// n bytes fit beside the work already admitted and returns the function
// that gives them back. The client's governor supplies one.
type Admitter interface {
	Admit(ctx context.Context, n int64) (release func(), err error)
}

// openTimeout bounds connecting to PostgreSQL.
const openTimeout = 30 * time.Second

// Storage is the storage module. Create it with New, attach it to a host
// with Attach, and Close it.
type Storage struct {
	opts Options
	log  *slog.Logger
	idx  *index
	sem  chan struct{}
	busy inflight // uploads being received or stored

	mu  sync.Mutex // guards rot and serialises the commit of uploads
	rot *rotator

	ship       *shipper
	stopShip   context.CancelFunc
	closeOnce  sync.Once
	closeError error
}

// New opens the storage module's index and WARC directory.
func New(opts Options) (*Storage, error) {
	if opts.Key == nil || opts.Manager == nil || opts.Tasks == nil || opts.Dir == "" {
		return nil, errors.New("new storage: Dir, Key, Manager and Tasks are required")
	}
	if opts.Concurrent <= 0 {
		opts.Concurrent = 4
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.BusyWait <= 0 {
		opts.BusyWait = DefaultBusyWait
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RetryWait <= 0 {
		opts.RetryWait = DefaultRetryWait
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	if v := opts.Validation; v != nil {
		if v.Checks == nil {
			return nil, errors.New("new storage: Validation needs Checks")
		}
		vc := *v
		vc.defaults()
		opts.Validation = &vc
	}
	var idx *index
	var err error
	if opts.Postgres != "" {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		idx, err = openPostgresIndex(ctx, opts.Postgres)
		cancel()
	} else {
		idx, err = openIndex(filepath.Join(opts.Dir, indexFile), false)
	}
	if err != nil {
		return nil, err
	}
	// Uploads spooled when the module last stopped are of no use: their
	// uploaders send them again.
	if err := os.RemoveAll(uploadsDir(opts.Dir)); err != nil {
		idx.Close()
		return nil, fmt.Errorf("clear upload spool: %w", err)
	}
	if err := os.MkdirAll(uploadsDir(opts.Dir), 0o700); err != nil {
		idx.Close()
		return nil, fmt.Errorf("create upload spool: %w", err)
	}
	dir := WARCDir(opts.Dir)
	ship := newShipper(dir, opts.Archive, opts.Logger, opts.RetryWait)
	rot, err := newRotator(dir, opts.MaxFileSize, opts.Now, opts.Logger, runTag(), ship.closed)
	if err != nil {
		idx.Close()
		return nil, err
	}
	leftovers, err := unindexed(dir)
	if err != nil {
		idx.Close()
		return nil, err
	}
	s := &Storage{opts: opts, log: opts.Logger, idx: idx, rot: rot, sem: make(chan struct{}, opts.Concurrent), ship: ship}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopShip = cancel
	go ship.run(ctx, leftovers)
	return s, nil
}

// runTag ends the names of the WARC files of one run: 8 random hex
// digits, so that managers sharing a bucket never name two files alike,
// even with one key and started in the same second.
func runTag() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WARCDir returns the WARC directory under a manager data directory.
func WARCDir(dataDir string) string { return filepath.Join(dataDir, "warc") }

// StreamHost is what Attach needs from a libp2p host.
type StreamHost interface {
	SetStreamHandler(pid protocol.ID, handler network.StreamHandler)
}

// Attach serves UploadProtocol and ReceiptsProtocol on h until Close.
func (s *Storage) Attach(h StreamHost) {
	h.SetStreamHandler(upload.UploadProtocol, s.handle)
	h.SetStreamHandler(upload.ReceiptsProtocol, s.handleReceipts)
}

// Close ends the current WARC file, uploads the closed files not yet
// uploaded (with an Archive, for at most Options.CloseTimeout) and closes
// the index. Uploads from crawlers still running fail.
func (s *Storage) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		rerr := s.rot.Close()
		s.ship.stop(s.stopShip, s.opts.CloseTimeout)
		s.closeError = errors.Join(rerr, s.idx.Close())
	})
	return s.closeError
}

// Idle waits until no upload is being received or stored, or ctx ends.
// Results and receipts read after it returns, with no uploader left
// running, include every upload storage began: what an operator's audit,
// or a test comparing the books, needs.
func (s *Storage) Idle(ctx context.Context) error { return s.busy.wait(ctx) }

// Totals returns the storage module's sums.
func (s *Storage) Totals() (Totals, error) { return s.idx.totals() }

// Contributors returns every contributing peer, most credit first.
func (s *Storage) Contributors() ([]Contributor, error) { return s.idx.contributors() }

// Lookup returns the index entry of a URL.
func (s *Storage) Lookup(u string) (Entry, bool, error) { return s.idx.entry(u) }
