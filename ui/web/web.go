package web

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/assets"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Defaults for zero Options fields.
const (
	DefaultInterval = 2 * time.Second
	// HistorySpan is how far back the charts go.
	HistorySpan = time.Hour
)

// StatusSource is where the page's status comes from: the client itself
// (localapi.Backend has this method).
type StatusSource interface {
	Status(ctx context.Context) (localapi.Status, error)
}

// Credits is the credits ledger as the page reads it.
type Credits interface {
	// Receipts returns up to limit receipts (0 = all), newest first.
	Receipts(ctx context.Context, limit int) ([]Receipt, error)
	// CreditDays returns the days from first to last that have receipts,
	// oldest first.
	CreditDays(ctx context.Context, first, last time.Time) ([]CreditDay, error)
	// WriteReceiptsCSV writes every receipt as CSV.
	WriteReceiptsCSV(ctx context.Context, w io.Writer) error
}

// Receipt is one credit receipt as the Credits page lists it.
type Receipt struct {
	task.Receipt
	Confirmed bool `json:"confirmed"`
	// Signed says whether the receipt carries a signature to verify (local
	// receipts, kept until the storage module exists, do not).
	Signed bool `json:"signed"`
	// Raw is the receipt's bytes as issued.
	Raw []byte `json:"raw,omitempty"`
}

// CreditDay is one local calendar day's credits.
type CreditDay struct {
	Date      string  `json:"date"` // "2006-01-02"
	Confirmed float64 `json:"confirmed"`
	Pending   float64 `json:"pending"`
	Pages     int64   `json:"pages"`
}

// Auth is the local API server's token: *localapi.Server.
type Auth interface {
	Authorized(r *http.Request) bool
	Token() string
	URL() string
}

// Mux is where the page's routes go: *localapi.Server, which puts its Host
// check, token check and security headers in front of them.
type Mux interface {
	// Handle adds a route that needs the token or, for reads, a session.
	Handle(pattern string, h http.Handler)
	// HandlePublic adds a route answered without either.
	HandlePublic(pattern string, h http.Handler)
	// AcceptSession takes a signed-in page's reads as if they carried
	// the token.
	AcceptSession(signedIn func(*http.Request) bool)
}

// Options configure a UI. Status and Auth are required.
type Options struct {
	Status  StatusSource
	Credits Credits // nil = the Credits page shows no receipts
	Auth    Auth
	// Interval between status samples; default 2s.
	Interval time.Duration
	// SessionFile keeps the page's sign-ins across restarts (mode 0600);
	// "" = in memory only.
	SessionFile string
	Logger      *slog.Logger     // default: discard
	Now         func() time.Time // default time.Now
}

// UI is the local web page. Mount it on the API server, then run Serve,
// which samples the status for the charts and the live updates.
type UI struct {
	opts     Options
	sessions *sessions
	cookie   string // the session cookie's name, unique per port

	mu   sync.Mutex // guards hist, subs, last
	hist *History
	subs map[chan []byte]struct{}
	last []byte // the latest "tick" event, sent to new subscribers
}

// New returns the page for opts.
func New(opts Options) *UI {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &UI{
		opts:     opts,
		sessions: newSessions(opts.SessionFile, opts.Logger),
		cookie:   cookieName(opts.Auth.URL()),
		hist:     NewHistory(HistorySpan, opts.Interval),
		subs:     make(map[chan []byte]struct{}),
	}
}

// Mount adds the page's routes to m.
//
// Only the page's own files and the sign-in exchange answer without the
// token or a session: the files are the same for everyone and hold no
// data (the page fetches all it shows), GET /ui/session says only
// "signed_in": false without a live session cookie, and GET /ui/login
// needs a one-time code that only the token can get. Everything else,
// reads included, needs the token or a signed-in page's session.
func (u *UI) Mount(m Mux) {
	files := http.FileServerFS(assets.Web())
	m.HandlePublic("GET /{$}", files)
	for _, name := range assetNames() {
		m.HandlePublic("GET /"+name, files)
	}
	m.HandlePublic("GET /ui/session", http.HandlerFunc(u.session))
	m.HandlePublic("GET /ui/login", http.HandlerFunc(u.login))
	m.AcceptSession(u.sessionReads)
	m.Handle("GET /ui/events", http.HandlerFunc(u.events))
	m.Handle("POST /ui/login-code", u.needToken(http.HandlerFunc(u.loginCode)))
	m.Handle("POST /ui/logout", u.needToken(http.HandlerFunc(u.logout)))
	m.Handle("GET /ui/receipts", http.HandlerFunc(u.receipts))
	m.Handle("GET /ui/receipts.csv", http.HandlerFunc(u.receiptsCSV))
	m.Handle("GET /ui/credits/days", http.HandlerFunc(u.creditDays))
}

// assetNames lists the page's files (assets.Web), each of which gets a
// public route of its own: any other path is not found, and without the
// token not even that is said.
func assetNames() []string {
	var names []string
	fs.WalkDir(assets.Web(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	return names
}

// Serve samples the status every Interval until ctx ends, keeping the
// charts' history and sending each sample to the open pages.
func (u *UI) Serve(ctx context.Context) error {
	t := time.NewTicker(u.opts.Interval)
	defer t.Stop()
	for {
		u.sample(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// tick is the "tick" event's data.
type tick struct {
	Status *localapi.Status `json:"status,omitempty"`
	Sample *Sample          `json:"sample,omitempty"`
	// Error says why there is no status this time.
	Error string `json:"error,omitempty"`
}

// sample reads the status once, records it and tells the subscribers.
func (u *UI) sample(ctx context.Context) {
	now := u.opts.Now()
	st, err := u.opts.Status.Status(ctx)
	var ev tick
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		u.opts.Logger.Debug("Status for the web page failed", "err", err)
		ev.Error = "the client did not answer: " + err.Error()
	} else {
		s := SampleOf(now, st)
		ev.Status, ev.Sample = &st, &s
	}
	data, err := json.Marshal(ev)
	if err != nil {
		u.opts.Logger.Error("Cannot encode a status event", "err", err)
		return
	}
	msg := sseMessage("tick", data)
	u.mu.Lock()
	defer u.mu.Unlock()
	if ev.Sample != nil {
		u.hist.Add(*ev.Sample)
	}
	u.last = msg
	for ch := range u.subs {
		select {
		case ch <- msg:
		default: // a slow page misses a tick; the next one catches it up
		}
	}
}

// History returns the samples of the last hour, oldest first.
func (u *UI) History() []Sample {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hist.Since(u.opts.Now().UnixMilli())
}
