package localapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
)

// maxBody bounds request bodies.
const maxBody = 64 << 10

// shutdownTimeout bounds Serve's shutdown.
const shutdownTimeout = 3 * time.Second

// Backend is what the server needs from the client.
type Backend interface {
	Status(ctx context.Context) (Status, error)
	// Config returns the current configuration as JSON.
	Config(ctx context.Context) (json.RawMessage, error)
	// SetConfig applies all changes or none; errors the caller caused are
	// wrapped with Invalid.
	SetConfig(ctx context.Context, changes []Change) error
	Pause(ctx context.Context) error
	// Finish starts no new task, lets the running ones end, then pauses.
	Finish(ctx context.Context) error
	Resume(ctx context.Context) error
	// Snooze pauses until the time d names ("1h", "30m", "tomorrow").
	Snooze(ctx context.Context, d string) (time.Time, error)
}

// Change is one KEY=VALUE setting.
type Change struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Options configure a Server.
type Options struct {
	// Port on 127.0.0.1; 0 = a free port.
	Port int
	// Fallback takes a free port when Port is in use (a second client, or
	// another program), instead of failing; Server.FellBack tells.
	Fallback bool
	// Token required for every request but the health check; "" = a fresh
	// random one.
	Token string
	// InfoFile is where the address and token are written for the CLI and
	// tray (mode 0600) while the server runs; "" = not written.
	InfoFile string
	Logger   *slog.Logger
}

// Server is the local API server.
type Server struct {
	backend Backend
	opts    Options
	ln      net.Listener
	port    string
	// fellBack is set when Options.Port was in use and a free port taken.
	fellBack bool
	mux      *router

	// session, when set, accepts a signed-in web page for reads.
	session atomic.Pointer[func(*http.Request) bool]
}

// Listen binds 127.0.0.1:opts.Port and returns the server, ready to Serve.
func Listen(b Backend, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Token == "" {
		buf := make([]byte, 24)
		rand.Read(buf)
		opts.Token = hex.EncodeToString(buf)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	fellBack := false
	if err != nil && opts.Port != 0 && opts.Fallback && addrInUse(err) {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		fellBack = true
	}
	if err != nil {
		return nil, fmt.Errorf("listen for the local API on 127.0.0.1:%d: %w", opts.Port, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s := &Server{backend: b, opts: opts, ln: ln, port: port, fellBack: fellBack, mux: newRouter()}
	s.routes()
	return s, nil
}

// URL is the server's base address, "http://127.0.0.1:PORT".
func (s *Server) URL() string { return "http://127.0.0.1:" + s.port }

// FellBack reports whether Options.Port was in use and the server took
// another port (Options.Fallback).
func (s *Server) FellBack() bool { return s.fellBack }

// Token is the API token.
func (s *Server) Token() string { return s.opts.Token }

// Handle adds a route (the web page's, for one) behind the same Host check,
// security headers and token check as the API's own: a request without the
// token, or for reads a signed-in page's session (AcceptSession), is
// refused with 401 before h sees it. Handlers that change state must also
// check the header token themselves with Authorized, since a session
// cookie alone must not change anything. Call it before Serve.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// HandlePublic adds a route answered without the token. Only for handlers
// that give away nothing of the client's state: the web page's own files,
// and the sign-in exchange that hands a browser its session. Call it
// before Serve.
func (s *Server) HandlePublic(pattern string, h http.Handler) { s.mux.add(pattern, h, true) }

// AcceptSession makes the server take, for GET and HEAD requests, a
// request for which signedIn reports true (the web page's session cookie)
// as if it carried the token. The browser cannot add the token header to
// every read (an EventSource cannot), and a signed-in page may read
// everything its token could.
func (s *Server) AcceptSession(signedIn func(*http.Request) bool) { s.session.Store(&signedIn) }

// Routes lists every route's pattern and whether it answers without the
// token, for tests that must cover each one.
func (s *Server) Routes() (patterns []string, public map[string]bool) { return s.mux.routes() }

// Handler is the whole API with its checks, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// Serve answers requests until ctx ends, with the info file written while
// it runs. Shutdown waits at most a few seconds for requests in flight.
func (s *Server) Serve(ctx context.Context) error {
	if s.opts.InfoFile != "" {
		if err := loopback.WriteInfo(s.opts.InfoFile, loopback.Info{URL: s.URL(), Token: s.opts.Token}); err != nil {
			s.ln.Close()
			return err
		}
		defer loopback.RemoveInfo(s.opts.InfoFile, s.URL())
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve local API: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-errc
	return nil
}

func (s *Server) routes() {
	s.mux.add("GET /api/health", http.HandlerFunc(s.getHealth), true)
	s.mux.HandleFunc("GET /api/status", s.getStatus)
	s.mux.HandleFunc("GET /api/config", s.getConfig)
	s.mux.Handle("POST /api/config", s.needToken(http.HandlerFunc(s.postConfig)))
	s.mux.Handle("POST /api/pause", s.needToken(http.HandlerFunc(s.postPause)))
	s.mux.Handle("POST /api/finish", s.needToken(http.HandlerFunc(s.postFinish)))
	s.mux.Handle("POST /api/resume", s.needToken(http.HandlerFunc(s.postResume)))
	s.mux.Handle("POST /api/snooze", s.needToken(http.HandlerFunc(s.postSnooze)))
	s.soloRoutes()
	s.eventRoutes()
	s.debugRoutes()
}

// guard refuses foreign Host headers, malformed paths and requests without
// the token (but to the public routes), and sets the security headers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loopback.SetHeaders(w.Header(), "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		if !loopback.HostAllowed(r.Host, s.port) {
			s.opts.Logger.Warn("Refused a local API request with a foreign Host header", "host", r.Host, "path", r.URL.Path)
			httpjson.ErrorIndented(w, http.StatusForbidden, "host not allowed: use http://127.0.0.1:"+s.port)
			return
		}
		if !validPath(r.URL.Path) {
			httpjson.ErrorIndented(w, http.StatusBadRequest, "malformed path: it must be UTF-8 text without control characters")
			return
		}
		if !s.mux.isPublic(r) && !s.mayRead(r) {
			httpjson.ErrorIndented(w, http.StatusUnauthorized, "missing or wrong API token (header "+loopback.TokenHeader+"); the CLI and tray read it from api.json in the config directory, and the dashboard signs in from the tray or with 'hivecrawl open'")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
}

// Authorized reports whether r carries the API token.
func (s *Server) Authorized(r *http.Request) bool {
	got := r.Header.Get(loopback.TokenHeader)
	if got == "" {
		if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			got = strings.TrimSpace(a[7:])
		}
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

// mayRead reports whether r carries the token, or is a read from a
// signed-in page (AcceptSession).
func (s *Server) mayRead(r *http.Request) bool {
	if s.Authorized(r) {
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	f := s.session.Load()
	return f != nil && (*f)(r)
}

// validPath reports whether a request's decoded path is one a route could
// name: valid UTF-8 (an overlong "%c0%ae" is not) without control
// characters.
func validPath(p string) bool {
	if !utf8.ValidString(p) {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// Health is the answer to GET /api/health, the one route that needs no
// token: it says that the client runs and nothing else.
type Health struct {
	OK bool `json:"ok"`
}

func (s *Server) getHealth(w http.ResponseWriter, r *http.Request) {
	httpjson.WriteIndented(w, http.StatusOK, Health{OK: true})
}

func (s *Server) needToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.Authorized(r) {
			httpjson.ErrorIndented(w, http.StatusUnauthorized, "missing or wrong API token (header "+loopback.TokenHeader+")")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) getStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.backend.Status(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	httpjson.WriteIndented(w, http.StatusOK, st)
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	c, err := s.backend.Config(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	httpjson.WriteIndented(w, http.StatusOK, c)
}

func (s *Server) postConfig(w http.ResponseWriter, r *http.Request) {
	changes, err := parseChanges(r)
	if err != nil {
		httpjson.ErrorIndented(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(changes) == 0 {
		httpjson.ErrorIndented(w, http.StatusBadRequest, "no settings given (send KEY=VALUE pairs or a JSON object)")
		return
	}
	if err := s.backend.SetConfig(r.Context(), changes); err != nil {
		s.fail(w, err)
		return
	}
	s.getConfig(w, r)
}

func (s *Server) postPause(w http.ResponseWriter, r *http.Request) {
	if err := s.backend.Pause(r.Context()); err != nil {
		s.fail(w, err)
		return
	}
	s.getStatus(w, r)
}

func (s *Server) postFinish(w http.ResponseWriter, r *http.Request) {
	if err := s.backend.Finish(r.Context()); err != nil {
		s.fail(w, err)
		return
	}
	s.getStatus(w, r)
}

func (s *Server) postResume(w http.ResponseWriter, r *http.Request) {
	if err := s.backend.Resume(r.Context()); err != nil {
		s.fail(w, err)
		return
	}
	s.getStatus(w, r)
}

// SnoozeResult is the answer to POST /api/snooze.
type SnoozeResult struct {
	Until time.Time `json:"until"`
}

func (s *Server) postSnooze(w http.ResponseWriter, r *http.Request) {
	until, err := s.backend.Snooze(r.Context(), r.URL.Query().Get("d"))
	if err != nil {
		s.fail(w, err)
		return
	}
	httpjson.WriteIndented(w, http.StatusOK, SnoozeResult{Until: until})
}

// parseChanges reads a JSON object ({"download": "200KB/s", "threads": 4}),
// a form (download=200KB/s&threads=4) or text lines (KEY=VALUE). JSON
// numbers and booleans become their text; objects and arrays their JSON.
func parseChanges(r *http.Request) ([]Change, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("read request: %w", err)
	}
	switch ct {
	case "application/json":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, fmt.Errorf("body is not a JSON object of settings: %w", err)
		}
		out := make([]Change, 0, len(obj))
		for k, raw := range obj {
			var s string
			switch {
			case json.Unmarshal(raw, &s) == nil:
			case string(raw) == "null":
			default:
				s = string(raw)
			}
			out = append(out, Change{Key: k, Value: s})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out, nil
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, fmt.Errorf("body is not a form: %w", err)
		}
		var out []Change
		keys := make([]string, 0, len(vals))
		for k := range vals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range vals[k] {
				out = append(out, Change{Key: k, Value: v})
			}
		}
		return out, nil
	case "", "text/plain":
		return ParseChanges(strings.Split(string(body), "\n"))
	}
	return nil, fmt.Errorf("unsupported content type %q (use application/json, a form or text/plain KEY=VALUE lines)", ct)
}

// ParseChanges reads KEY=VALUE items, skipping blank ones.
func ParseChanges(items []string) ([]Change, error) {
	var out []Change
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		k, v, ok := strings.Cut(it, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE", it)
		}
		out = append(out, Change{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// fail answers a Backend error: 400 for the caller's mistakes, 404 for
// what does not exist, 409 for what the client's mode does not offer, else
// 500.
func (s *Server) fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrInvalid):
		httpjson.ErrorIndented(w, http.StatusBadRequest, err.Error())
		return
	case errors.Is(err, ErrNotFound):
		httpjson.ErrorIndented(w, http.StatusNotFound, err.Error())
		return
	case errors.Is(err, ErrNotSolo), errors.Is(err, ErrConflict):
		httpjson.ErrorIndented(w, http.StatusConflict, err.Error())
		return
	}
	s.opts.Logger.Error("Local API request failed", "err", err)
	httpjson.ErrorIndented(w, http.StatusInternalServerError, err.Error())
}

// countParam reads the query's n, a count from 1 to most (def when absent);
// ok is false when it is bad and the 400 answer has been written.
func countParam(w http.ResponseWriter, r *http.Request, def, most int) (n int, ok bool) {
	v := r.URL.Query().Get("n")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		httpjson.ErrorIndented(w, http.StatusBadRequest, "n must be a whole number from 1 to "+strconv.Itoa(most))
		return 0, false
	}
	return n, true
}
