package storage

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/internal/frame"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/task"
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

// storeCost estimates the memory storing an upload takes when its largest
// page message is of largest bytes: that message read and decoded, its
// text decompressed and written, and a search batch being analysed.
func storeCost(largest int) int64 {
	return 4*int64(largest) + searchCost
}

// searchCost is what the search index takes to analyse one batch of
// searchBatchText bytes of text: about 32 MB of live heap measured, for
// text with term vectors kept for snippets.
const searchCost = 32 << 20

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
	h.SetStreamHandler(UploadProtocol, s.handle)
	h.SetStreamHandler(ReceiptsProtocol, s.handleReceipts)
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

// DefaultBusyWait is Options.BusyWait's default. Uploads come in bursts
// (every volunteer holding results delivers them the moment a manager
// that was down answers again): they are taken in turn, while their
// uploaders' writes wait on the stream's flow control.
const DefaultBusyWait = 30 * time.Second

func (s *Storage) handle(st network.Stream) {
	s.busy.add(1)
	defer s.busy.add(-1)
	defer st.Close()
	from := st.Conn().RemotePeer()
	st.SetDeadline(time.Now().Add(s.opts.Timeout))
	br := bufio.NewReader(st)
	// The header is read and checked before a slot is taken: a slot holds
	// an upload in memory, and a peer that is not the lease holder of a
	// task this manager issued (or sends nothing) must not keep them.
	h, t, resp := s.readHeader(br, from)
	if resp == nil {
		wait := time.NewTimer(s.opts.BusyWait)
		select {
		case s.sem <- struct{}{}:
			wait.Stop()
			defer func() { <-s.sem }()
		case <-wait.C:
			// The uploader reads the answer only after its last page; left
			// unread, an upload larger than the stream's window would block
			// on it until its timeout. The reset ends its writes at once,
			// and it tries again after its backoff.
			s.log.Debug("Upload turned away: storage busy", "peer", from)
			s.respond(st, &Response{Error: "storage busy, retry later"})
			st.Reset()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
		defer cancel()
		resp = s.receive(ctx, br, from, h, t)
	} else {
		// Read what the uploader still sends, without keeping it, so that
		// it reads the answer and does not send it again.
		io.Copy(io.Discard, io.LimitReader(br, MaxUploadBytes+MaxPages*binary.MaxVarintLen64))
	}
	if resp.Error != "" {
		s.log.Info("Upload refused", "peer", from, "reason", resp.Error)
		if err := s.idx.count(func(t *Totals) { t.Refused++ }); err != nil {
			s.log.Warn("Count refused upload", "err", err)
		}
	}
	s.respond(st, resp)
}

// readHeader reads and checks an upload's header: the header and its
// task when the upload may go on, else the refusal. It refuses what
// Accept would refuse for good from the header alone (mayUpload).
func (s *Storage) readHeader(br *bufio.Reader, from peer.ID) (*Header, *task.Task, *Response) {
	b, err := frame.ReadBytes(br, br, MaxHeaderSize)
	if err != nil {
		return nil, nil, &Response{Error: fmt.Sprintf("read header: %v", err)}
	}
	h, err := DecodeHeader(b)
	if err != nil {
		return nil, nil, &Response{Error: err.Error()}
	}
	t, err := s.open(h)
	if err == nil {
		_, err = s.mayUpload(t, from.String())
	}
	if err != nil {
		return nil, nil, &Response{Error: peerMessage(err), Final: errors.Is(err, errRefused)}
	}
	return h, t, nil
}

// open checks the signature on the task of upload header h.
func (s *Storage) open(h *Header) (*task.Task, error) {
	t, err := envelope.Open(h.Task, s.opts.Manager)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	return t, nil
}

// mayUpload returns the record of task t when peer from may upload its
// result: the manager issued it, and from holds its lease or a result of
// it is stored already (Accept answers a repeat or a late one). Errors
// wrapping errRefused are final.
func (s *Storage) mayUpload(t *task.Task, from string) (channels.Task, error) {
	rec, err := s.opts.Tasks.Task(t.ID)
	switch {
	case errors.Is(err, channels.ErrNotFound):
		return rec, fmt.Errorf("%w: task %s was never issued by this manager", errRefused, t.ID)
	case err != nil:
		return rec, err
	}
	if err := s.optedOut(cmp.Or(rec.Host, t.Host())); err != nil {
		return rec, err
	}
	switch {
	case rec.Epoch > 0 && rec.Holder != from:
		// Only the crawler holding the host's lease worked on the host
		// for this task; anyone else's pages are not its result.
		_, found, err := s.idx.receipt(t.ID)
		switch {
		case err != nil:
			return rec, fmt.Errorf("read receipt of task %s: %w", t.ID, err)
		case !found:
			return rec, fmt.Errorf("%w: %w: task %s", errRefused, channels.ErrNotHolder, t.ID)
		}
	}
	return rec, nil
}

// optedOut refuses, for good, an upload of a task on host when host
// opted out of the crawler: what its crawler fetched is not stored.
func (s *Storage) optedOut(host string) error {
	if s.opts.OptOuts == nil || host == "" {
		return nil
	}
	o, ok, err := s.opts.OptOuts.OptedOut(host)
	switch {
	case err != nil:
		return err
	case ok:
		return fmt.Errorf("%w: %w: %s (%s)", errRefused, channels.ErrOptedOut, host, o.Name)
	}
	return nil
}

func (s *Storage) respond(st network.Stream, r *Response) {
	if err := frame.Write(st, r, MaxResponseSize); err != nil {
		s.log.Debug("Upload response not sent", "peer", st.Conn().RemotePeer(), "err", err)
	}
}

// receive reads the pages of the upload whose header h, of task t, was
// read and stores it. The pages are spooled to a file as they come, so
// that neither a slow uploader holds the commit lock nor a large result
// the memory; the store is admitted against Options.Admit.
func (s *Storage) receive(ctx context.Context, br *bufio.Reader, from peer.ID, h *Header, t *task.Task) *Response {
	up, resp := s.spoolUpload(ctx, br, h.Pages)
	if resp != nil {
		return resp
	}
	defer os.Remove(up.path)
	if a := s.opts.Admit; a != nil {
		release, err := a.Admit(ctx, storeCost(up.largest))
		if err != nil {
			return &Response{Error: fmt.Sprintf("storage busy, retry later: %v", err)}
		}
		defer release()
	}
	resp, err := s.accept(ctx, from.String(), t, h, up)
	if err != nil {
		msg := peerMessage(err)
		if msg != err.Error() {
			s.log.Warn("Upload not stored", "task", t.ID, "peer", from, "err", err)
		}
		return &Response{Error: msg, Final: errors.Is(err, errRefused)}
	}
	return resp
}

// errRefused marks the refusals of an upload that sending it again cannot
// change (Response.Final).
var errRefused = errors.New("refused")

// Accept checks and stores one upload from peer: the task must be signed
// by the manager and issued by it; the first valid result of a task is
// stored and earns credit, a repeat from the same peer gets the same
// receipt back, and a result that comes after another peer's earns a
// receipt of zero. It returns an error for uploads it refuses.
func (s *Storage) Accept(ctx context.Context, from string, h *Header, pages []*task.Page) (*Response, error) {
	t, err := s.open(h)
	if err != nil {
		return nil, err
	}
	return s.accept(ctx, from, t, h, pageSlice(pages))
}

// accept is Accept for the upload of task t, whose signature was checked.
func (s *Storage) accept(ctx context.Context, from string, t *task.Task, h *Header, pages pageSource) (*Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, found, err := s.idx.receipt(t.ID); err != nil {
		return nil, fmt.Errorf("read receipt of task %s: %w", t.ID, err)
	} else if found {
		if prev.Peer == from {
			return &Response{Receipt: prev.Raw}, nil
		}
		return s.duplicate(t, from)
	}
	rec, err := s.mayUpload(t, from)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.State == channels.TaskDone && rec.Peer != from:
		return s.duplicate(t, from)
	case rec.State == channels.TaskFailed:
		// The deadline passed and the task was counted lost; its channel
		// is due again, so this late result is not needed.
		return s.duplicate(t, from)
	case rec.Checks != "":
		return s.judge(ctx, t, rec, from, pages, hostAsks(h.Result))
	}
	return s.store(ctx, t, rec, from, h, pages)
}

// hostAsks is the part of a result's feedback that a spot-check's carries
// too: what the host asked of the crawler (its wait, a rest) and the
// addresses it answered from. Ending a check's lease records them at the
// host's lease as a crawl's result does, so that the host's next
// crawler keeps the wait after the checker's last request.
func hostAsks(r task.Result) channels.Feedback {
	return channels.Feedback{HostWait: time.Duration(r.HostWait), HostRest: r.HostRest, HostAddrs: r.HostAddrs}
}

// continuation is the rest of handed-off task t (task.StoppedHandedOff) as
// an unsigned task for whoever takes the host over, or nil when res
// carries no rest that task t may go on with.
func continuation(t *task.Task, res *task.Result) *task.Task {
	if res.Stopped != task.StoppedHandedOff || res.Rest == nil || len(res.Rest.Todo) == 0 {
		return nil
	}
	if err := res.Rest.Validate(t.Host()); err != nil {
		return nil
	}
	next := *t
	next.ID, next.Resume = task.ContinuationID(t.ID), res.Rest
	next.Issued, next.Lease, next.Target, next.Policy = time.Time{}, task.Lease{}, nil, task.Policy{}
	if next.Validate() != nil {
		return nil
	}
	return &next
}

// duplicate answers a result that came after another: a signed receipt of
// zero, so the crawler stops retrying.
func (s *Storage) duplicate(t *task.Task, from string) (*Response, error) {
	if err := s.idx.count(func(tt *Totals) { tt.Duplicates++ }); err != nil {
		return nil, fmt.Errorf("count duplicate: %w", err)
	}
	r := task.Receipt{TaskID: t.ID, Channel: t.Channel, Peer: from, IssuedAt: s.opts.Now().UTC()}
	raw, err := SignReceipt(r, s.opts.Key)
	if err != nil {
		return nil, err
	}
	return &Response{Receipt: raw, Duplicate: true}, nil
}

// fetchSkew is how far a crawler's clock may lag the manager's when it
// dates a fetched page: pages dated earlier than their task's issue time by
// more are replayed from an older result and not accepted.
const fetchSkew = 5 * time.Minute

// store writes the pages of a first result and issues its receipt. The
// WARC records are made durable before the task is marked done, and the
// receipt is stored after it: a crash in between makes the same peer's
// retry store the records again (duplicated in WARC, indexed once).
//
// The pages are read three times, one at a time: to choose the ones
// stored, to write them, and to index their text for search once the
// result is known to be kept. Only their URLs and index entries are held
// for the whole result.
func (s *Storage) store(ctx context.Context, t *task.Task, rec channels.Task, from string, h *Header, pages pageSource) (*Response, error) {
	now := s.opts.Now().UTC()
	hosts := map[string]bool{}
	for _, seed := range t.Seeds {
		if u, err := urls.Canonical(seed, nil); err == nil {
			hosts[u.Host] = true
		}
	}
	// keyOf is the canonical URL of each page stored, "" for the others.
	keyOf := make([]string, pages.Len())
	keys := make([]string, 0, pages.Len())
	seen := make(map[string]bool, pages.Len())
	err := pages.Each(func(i int, p *task.Page) error {
		// A page is stored, indexed and credited under its canonical URL,
		// once per upload: the same page under several spellings ("#a",
		// an escape, a tracking parameter) or sent twice is one page, and
		// a spot-check of one copy would vouch for all.
		u, err := urls.Canonical(p.URL, nil)
		if err != nil || !hosts[u.Host] || p.Error != "" || p.DuplicateOf != "" {
			return nil
		}
		if !t.Issued.IsZero() && p.FetchedAt.Before(t.Issued.Add(-fetchSkew)) {
			// Fetched before its task was issued: a replayed page.
			return nil
		}
		key := u.String()
		if seen[key] {
			return nil
		}
		seen[key] = true
		keyOf[i] = key
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen = nil
	known, err := s.idx.entries(keys)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	var others map[string]bool // tasks of known pages whose result was another peer's
	if s.opts.Validation != nil {
		if others, err = s.idx.othersTasks(known, from); err != nil {
			return nil, fmt.Errorf("read index: %w", err)
		}
	}
	var (
		fb         = channels.Feedback{Stats: h.Result.Stats, InterSite: h.Result.InterSite, Stopped: h.Result.Stopped, HostWait: time.Duration(h.Result.HostWait), HostRest: h.Result.HostRest, HostAddrs: h.Result.HostAddrs, Strike: h.Result.Strike, Refused: h.Result.Refused}
		entries    = make(map[string]Entry, len(keys))
		r          = task.Receipt{TaskID: t.ID, Channel: t.Channel, Peer: from, IssuedAt: now}
		unchang    int
		records    int
		textSize   int64
		validating = s.opts.Validation != nil
		wrote      written   // kept when validating
		sample     []sampled // kept when validating
		found      []int     // the positions of the pages to index for search
	)
	err = pages.Each(func(i int, p *task.Page) error {
		key := keyOf[i]
		if key == "" {
			return nil
		}
		if key != p.URL {
			c := *p
			c.URL = key
			p = &c
		}
		prev, wasKnown := known[p.URL]
		if p.Unchanged && !wasKnown {
			// "Unchanged" since a crawl that stored nothing: a page count
			// inflated without content, or a filter's false positive.
			return nil
		}
		pr, unchanged := channels.Classify(p, prev.Digest, wasKnown)
		if unchanged {
			unchang++
			fb.Pages = append(fb.Pages, pr)
			if validating {
				e := Entry{Digest: pr.Digest, ETag: p.ETag, LastModified: p.LastModified, Fetched: p.FetchedAt, Task: prev.Task, Location: prev.Location}
				sample = append(sample, sampled{URL: p.URL, Entry: e, Unchanged: true, Known: others[prev.Task]})
			}
			return nil
		}
		text, err := export.Text(p)
		if err != nil {
			return nil // text that does not decompress is not accepted
		}
		if p.Refused != "" {
			text = "" // the site refused the crawl: kept as a page without text, wherever the text came from
		}
		if s.opts.Search != nil && text != "" {
			found = append(found, i)
		}
		wp := p
		if !s.opts.StoreRaw && (p.Raw != nil || p.Header != nil) {
			c := *p
			dropRaw(&c)
			wp = &c
		}
		loc, ok, err := s.rot.Page(wp)
		if err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if ok {
			records++
			textSize += int64(len(p.Text))
		}
		fb.Pages = append(fb.Pages, pr)
		e := Entry{Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified, Fetched: p.FetchedAt, Task: t.ID, Location: loc}
		entries[p.URL] = e
		if validating {
			sample = append(sample, sampled{URL: p.URL, Entry: e, Known: wasKnown && others[prev.Task]})
			wrote.URLs = append(wrote.URLs, p.URL)
			if ok {
				wrote.Records = append(wrote.Records, loc)
			}
		}
		if wasKnown {
			r.PagesChanged++
		} else {
			r.PagesNew++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.rot.Sync(); err != nil {
		return nil, err
	}
	r.PagesAccepted = r.PagesNew + r.PagesChanged + unchang
	r.Bytes = textSize
	r.Credits = Credits(r.PagesNew, r.PagesChanged, unchang, textSize)
	var (
		chk      *checkRec
		recorded bool
	)
	if r.Credits > 0 {
		picked, rec, err := s.chooseCheck(from, sample)
		recorded = rec
		if err != nil {
			return nil, fmt.Errorf("validation record of %s: %w", from, err)
		}
		if len(picked) > 0 {
			r.State = task.CreditPending
			chk = &checkRec{Task: t.ID, Peer: from, Sample: picked, Recorded: recorded, Written: wrote}
		}
	}
	fb.Continue = continuation(t, &h.Result)
	if rec.State == channels.TaskOpen {
		out, err := s.opts.Tasks.Complete(ctx, t.ID, from, fb)
		if err != nil {
			return nil, fmt.Errorf("record result of task %s: %w", t.ID, err)
		}
		if !out.First && out.Task.Peer != from {
			return s.duplicate(t, from)
		}
	}
	raw, err := SignReceipt(r, s.opts.Key)
	if err != nil {
		return nil, err
	}
	// Indexed for search before the receipt is committed: a page listed as
	// stored, or a credit confirmed, is one that search finds.
	if err := s.index(t.Channel, pages, keyOf, found); err != nil {
		s.log.Warn("Pages stored but not indexed for search", "task", t.ID, "err", err)
	}
	if err := s.idx.commit(entries, r, raw, h.Nickname, records, chk, validating, recorded); err != nil {
		return nil, fmt.Errorf("store receipt of task %s: %w", t.ID, err)
	}
	s.log.Info("Upload stored", "task", t.ID, "peer", from, "new", r.PagesNew, "changed", r.PagesChanged,
		"unchanged", unchang, "credits", r.Credits)
	return &Response{Receipt: raw}, nil
}
