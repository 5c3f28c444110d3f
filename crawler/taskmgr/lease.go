package taskmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
)

// Leaser claims, renews and releases a task's lease on its web host with
// the manager (design.md §8). Tasks that carry no lease (local mode) run
// without one.
type Leaser interface {
	// Claim asks for the lease before the first request to the host.
	Claim(ctx context.Context, r *queue.Record) (Grant, error)
	// Renew extends it, reporting the crawl's progress: the manager
	// renews only a lease whose crawl moves, or whose host asked it to
	// wait.
	Renew(ctx context.Context, r *queue.Record, p Progress) (Grant, error)
	// Release gives it up once the crawl stopped without finishing, so
	// the heir of a handover can claim it, reporting the crawl's progress:
	// the heir's first request keeps the wait its host asked for after
	// this crawler's last.
	Release(ctx context.Context, r *queue.Record, p Progress) error
}

// Progress is what a renewal shows of its crawl.
type Progress struct {
	// Pages is the pages the crawl has fetched, its checkpoint's
	// included; Requests the requests to its host that ended here
	// (robots.txt and sitemaps too; 0 when the Runner does not say).
	Pages, Requests int
	// Wait is how long the host itself asked the next request to wait
	// (Crawl-delay, Retry-After).
	Wait time.Duration
}

// HostWatcher is a Runner that tells what it did on a host;
// *crawler.Crawler is one. Without it, renewals show pages alone.
type HostWatcher interface {
	HostActivity(host string) crawler.HostActivity
}

// Grant is a granted claim or renewal.
type Grant struct {
	// Expires is when the lease ends unless renewed.
	Expires time.Time
	// RenewEvery is how often to renew; 0 = a third of the time left.
	RenewEvery time.Duration
}

// Lease refusals a Leaser returns (wrapped).
var (
	// ErrLeaseHeld: another crawler holds the host's lease; the task
	// waits in the queue and is tried again later.
	ErrLeaseHeld = errors.New("the host's lease is held by another crawler")
	// ErrLeaseOver: the lease can no longer be had or kept; a queued task
	// is dropped, a running crawl stops at once.
	ErrLeaseOver = errors.New("the task's lease is over")
)

// LeaseHeld is ErrLeaseHeld with the manager's word on when the claim
// may be granted: a Leaser returns it when the manager knows.
type LeaseHeld struct {
	// RetryIn is how long until the wait that holds the claim has passed.
	RetryIn time.Duration
	Err     error
}

func (e *LeaseHeld) Error() string   { return e.Err.Error() }
func (e *LeaseHeld) Unwrap() []error { return []error{ErrLeaseHeld, e.Err} }

// claimRetry returns how long a task whose claim was held at now waits
// before it claims again: the manager's RetryIn when it gave one (a
// little later, so that claimers held by one wait do not all come at
// its end), else retry; and never so long that the task's start-by
// passes meanwhile, if it can be helped (a claim is refused for good
// after it).
func claimRetry(err error, retry time.Duration, now, startBy time.Time) time.Duration {
	if h, ok := errors.AsType[*LeaseHeld](err); ok && h.RetryIn > 0 {
		// Never sooner than minClaimRetry: a manager answering "now"
		// over and over must not make claims a busy loop.
		in := min(max(h.RetryIn, minClaimRetry), retry)
		retry = in + rand.N(in/5+time.Millisecond)
	}
	if left := startBy.Sub(now); !startBy.IsZero() && left > 0 {
		// Two more tries at least before it passes.
		retry = min(retry, max(left/3, minClaimRetry))
	}
	return retry
}

// minClaimRetry is the shortest wait between two claims of one task.
const minClaimRetry = 200 * time.Millisecond

// Lease defaults: DefaultLeaseMargin is how long before its lease expires
// a crawl stops, so the last request is over (the connection closed)
// before the manager may count the lease lapsed; DefaultClaimRetry is how
// long a task whose claim was not granted waits before it is tried again.
const (
	DefaultLeaseMargin = 2 * time.Second
	DefaultClaimRetry  = 10 * time.Second
)

// errLeaseEnded is the cause of a crawl context ended by its lease.
var errLeaseEnded = errors.New("lease ended")

// held is a lease a running task holds: it renews it and ends the crawl's
// context before it expires.
type held struct {
	m      *Manager
	r      *queue.Record
	th     *thread
	log    *slog.Logger
	cancel context.CancelCauseFunc
	stop   chan struct{}
	done   chan struct{}
	ended  sync.Once

	mu      sync.Mutex // guards expires and timer
	expires time.Time
	timer   *time.Timer
}

// claim claims r's lease and returns the crawl context bound to it, or an
// error: ErrLeaseHeld or any failure to reach the manager means try later,
// ErrLeaseOver means drop the task.
func (m *Manager) claim(ctx, crawlCtx context.Context, r *queue.Record, th *thread, log *slog.Logger) (context.Context, *held, error) {
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	g, err := m.opts.Leaser.Claim(cctx, r)
	cancel()
	if err != nil {
		return nil, nil, err
	}
	lctx, lcancel := context.WithCancelCause(crawlCtx)
	h := &held{m: m, r: r, th: th, log: log, cancel: lcancel, stop: make(chan struct{}), done: make(chan struct{})}
	h.extend(g)
	m.mu.Lock()
	if cause, ok := m.revoked[r.ID]; ok {
		// Ended by the manager while the claim was on its way back.
		delete(m.revoked, r.ID)
		lcancel(fmt.Errorf("%w: %w", errLeaseEnded, cause))
	} else if m.ended != nil {
		lcancel(fmt.Errorf("%w: %w", errLeaseEnded, m.ended))
	} else {
		if m.leases == nil {
			m.leases = make(map[string]*held)
		}
		m.leases[r.ID] = h
	}
	m.mu.Unlock()
	go h.renew(ctx, g.RenewEvery)
	return lctx, h, nil
}

// EndLeases ends every lease the running tasks hold, at once, because
// of cause: each crawl's context ends, so it sends no request after
// this returns (one already on the wire is cut off), and keeps what it
// fetched as a result cut short, as when a renewal is refused. Leases
// claimed later end as soon as they are granted. The client calls it
// when the manager withdraws its request-signing key: waiting for each
// task's next renewal would let it go on crawling for minutes, signing
// requests with a key that sites no longer accept.
func (m *Manager) EndLeases(cause error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended == nil {
		m.ended = cause
	}
	for id, h := range m.leases {
		h.log.Warn("Lease ended by the manager; stopping the crawl", "cause", cause)
		h.cancel(fmt.Errorf("%w: %w", errLeaseEnded, cause))
		delete(m.leases, id)
	}
}

// maxRevoked bounds the revocations EndLease keeps for tasks whose claim
// it did not find: their claims are on the way, or they never ran here.
const maxRevoked = 256

// EndLease ends the lease of task id, at once, because of cause, as
// EndLeases ends them all: its crawl sends no request after this returns
// and keeps what it fetched as a result cut short. The client calls it
// when the manager revokes that one lease (the task's site opted out).
// A lease being claimed now ends as soon as it is granted; a task not
// running here is left alone (its claim is refused). It reports whether
// a running crawl was stopped.
func (m *Manager) EndLease(id string, cause error) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.leases[id]
	if !ok {
		if m.revoked == nil {
			m.revoked = make(map[string]error)
		}
		if len(m.revoked) >= maxRevoked {
			for k := range m.revoked {
				delete(m.revoked, k) // any one: the oldest are likeliest never claimed
				break
			}
		}
		m.revoked[id] = cause
		return false
	}
	h.log.Warn("Lease ended by the manager; stopping the crawl", "cause", cause)
	h.cancel(fmt.Errorf("%w: %w", errLeaseEnded, cause))
	delete(m.leases, id)
	return true
}

// extend moves the stop time to g's expiry less the margin.
func (h *held) extend(g Grant) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expires = g.Expires
	d := g.Expires.Sub(h.m.opts.Now()) - h.m.opts.LeaseMargin
	if h.timer == nil {
		h.timer = time.AfterFunc(max(d, 0), func() {
			h.mu.Lock()
			exp := h.expires
			h.mu.Unlock()
			h.cancel(fmt.Errorf("%w: not renewed before %s", errLeaseEnded, exp.Format(time.RFC3339)))
		})
		return
	}
	h.timer.Reset(max(d, 0))
}

// renew renews the lease every period until the crawl ends. A refusal
// ends the crawl at once; a manager that cannot be reached lets the lease
// run out.
func (h *held) renew(ctx context.Context, period time.Duration) {
	defer close(h.done)
	for {
		h.mu.Lock()
		left := h.expires.Sub(h.m.opts.Now())
		h.mu.Unlock()
		wait := period
		if wait <= 0 || wait > left/3 {
			wait = max(left/3, time.Second)
		}
		select {
		case <-h.stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		g, err := h.m.opts.Leaser.Renew(rctx, h.r, h.progress())
		cancel()
		switch {
		case err == nil:
			h.extend(g)
			if g.RenewEvery > 0 {
				period = g.RenewEvery
			}
		case errors.Is(err, ErrLeaseOver):
			h.log.Warn("Lease lost; stopping the crawl", "err", err)
			h.cancel(fmt.Errorf("%w: %w", errLeaseEnded, err))
			return
		default:
			h.log.Info("Lease not renewed; the crawl stops when it runs out unless a later renewal succeeds", "err", err)
		}
	}
}

// progress is what the next renewal shows of h's crawl.
func (h *held) progress() Progress {
	p := Progress{Pages: int(h.th.pages.Load())}
	w, ok := h.m.opts.Runner.(HostWatcher)
	if !ok || len(h.r.Task.Seeds) == 0 {
		return p
	}
	if u, err := url.Parse(h.r.Task.Seeds[0]); err == nil {
		a := w.HostActivity(u.Host)
		p.Requests, p.Wait = a.Requests, a.Wait
	}
	return p
}

// end stops renewing; later calls do nothing. It does not release the
// lease.
func (h *held) end() {
	h.ended.Do(func() {
		h.m.mu.Lock()
		if h.m.leases[h.r.ID] == h {
			delete(h.m.leases, h.r.ID)
		}
		h.m.mu.Unlock()
		close(h.stop)
		<-h.done
		h.mu.Lock()
		h.timer.Stop()
		h.mu.Unlock()
		h.cancel(nil)
	})
}

// release gives the lease up after the crawl stopped unfinished; failing
// that, it lapses at its expiry and the heir waits for it.
func (h *held) release() { h.m.releaseClaim(h.log, h.r, h.progress()) }

// releaseClaim gives r's lease up, held or perhaps granted; failing that,
// it lapses at its expiry and the heir waits for it.
func (m *Manager) releaseClaim(log *slog.Logger, r *queue.Record, p Progress) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.opts.Leaser.Release(ctx, r, p); err != nil {
		log.Info("Lease not released; it lapses at its expiry", "err", err)
	}
}

// waiting records that task r may not start for a while (its claim was
// not granted with err), and requeues it.
func (m *Manager) waiting(log *slog.Logger, r *queue.Record, err error) {
	now := m.opts.Now()
	retry := claimRetry(err, m.opts.ClaimRetry, now, r.Task.Lease.Expires)
	m.mu.Lock()
	m.notBefore[r.ID] = now.Add(retry)
	m.mu.Unlock()
	if qerr := m.q.Requeue(r.ID); qerr != nil {
		log.Error("Cannot return a task to the queue", "err", qerr)
		return
	}
	log.Info("Task waits for its host's lease", "err", err, "retry_in", retry.Round(time.Millisecond))
}

// startable returns the test fill gives Queue.Next: a queued task may
// start when no other task of its host runs here (one connection per host,
// whatever the overlay sends), and it is not waiting to claim its lease
// again. Only fill adds running tasks, so the snapshot errs, if at all,
// on the side of waiting.
func (m *Manager) startable() func(*queue.Record) bool {
	now := m.opts.Now()
	m.mu.Lock()
	busy := make(map[string]bool, len(m.running))
	for _, th := range m.running {
		busy[th.host] = true
	}
	later := make(map[string]bool)
	for id, t := range m.notBefore {
		if now.Before(t) {
			later[id] = true
		} else {
			delete(m.notBefore, id)
		}
	}
	m.mu.Unlock()
	return func(r *queue.Record) bool { return !later[r.ID] && !busy[r.Task.Host()] }
}
