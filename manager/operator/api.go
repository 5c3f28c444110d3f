package operator

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// maxAPIBody bounds a request body.
const maxAPIBody = 1 << 20

// SeedsRequest is the body of POST /api/seeds.
type SeedsRequest struct {
	URLs []string `json:"urls"`
}

// SeedsResponse answers POST /api/seeds. A refusal answers 400 with
// {"error": why}, and nothing is added.
type SeedsResponse struct {
	Created []string `json:"created"`
	// Known are the seed URLs that were seeds already.
	Known []string `json:"known,omitempty"`
	// OptedOut are the seed URLs on sites that opted out: not added.
	OptedOut []string `json:"opted_out,omitempty"`
}

// OptOutRequest is the body of POST /api/optouts and POST
// /api/optouts/remove: hosts, registrable domains or URLs on them.
type OptOutRequest struct {
	Names []string `json:"names"`
}

// OptOutResponse answers POST /api/optouts. A refusal answers 400 with
// {"error": why}, and nothing is added.
type OptOutResponse struct {
	OptedOut []OptedOut `json:"opted_out"`
}

// OptInResponse answers POST /api/optouts/remove: the names that were
// on the list.
type OptInResponse struct {
	Lifted []string `json:"lifted"`
}

// OptOutList answers GET /api/optouts.
type OptOutList struct {
	OptOuts []channels.OptOut `json:"opt_outs"`
}

// WithdrawRequest is the body of POST /api/keys/withdraw.
type WithdrawRequest struct {
	// Key is a volunteer's peer ID or the keyid of its request-signing key.
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Service is what the API asks of the manager.
type Service interface {
	// Status gathers the manager's figures.
	Status() (Status, error)
	// AddSites adds seed URLs a person named (channels.CheckSeeds).
	AddSites(urls []string) (channels.Added, error)
	// OptOut puts names on the opt-out list, as by says; OptIn takes
	// them off and returns those that were on it; OptOuts lists it.
	OptOut(names []string, by string) ([]OptedOut, error)
	OptIn(names []string) ([]string, error)
	OptOuts() ([]channels.OptOut, error)
	// WithdrawKey takes a volunteer's request-signing key out of the key
	// directory.
	WithdrawKey(key, reason string) error
}

// Server is the manager's local API and status page, on loopback with
// the client API's protections (ui/localapi): Host header check, security
// headers, and a token (loopback.TokenHeader or a bearer token) for every
// state change.
type Server struct {
	m     Service
	now   func() time.Time
	log   *slog.Logger
	ln    net.Listener
	srv   *http.Server
	url   string
	port  string
	token string
	info  string
}

// Listen opens the API on addr, a loopback address, and writes its URL
// and token to infoPath (loopback.WriteInfo). metrics is served at
// /metrics without the token, as the status page is: neither changes
// anything.
func Listen(m Service, addr, infoPath string, metrics http.Handler, now func() time.Time, log *slog.Logger) (*Server, error) {
	ln, err := listenLoopback(addr)
	if err != nil {
		return nil, fmt.Errorf("local API: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		ln.Close()
		return nil, fmt.Errorf("make API token: %w", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	a := &Server{m: m, now: now, log: log, ln: ln, port: port, token: hex.EncodeToString(b[:]), info: infoPath,
		url: "http://127.0.0.1:" + port}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.page)
	mux.HandleFunc("GET /api/status", a.status)
	// Prometheus scrapes without the token, like the status page: it
	// changes nothing.
	mux.Handle("GET /metrics", metrics)
	mux.Handle("POST /api/seeds", a.needToken(http.HandlerFunc(a.seeds)))
	mux.Handle("POST /api/keys/withdraw", a.needToken(http.HandlerFunc(a.withdrawKey)))
	mux.Handle("GET /api/optouts", a.needToken(http.HandlerFunc(a.optOuts)))
	mux.Handle("POST /api/optouts", a.needToken(http.HandlerFunc(a.optOut)))
	mux.Handle("POST /api/optouts/remove", a.needToken(http.HandlerFunc(a.optIn)))
	a.srv = &http.Server{Handler: a.guard(mux), ReadHeaderTimeout: 10 * time.Second}
	if err := loopback.WriteInfo(infoPath, loopback.Info{URL: a.url, Token: a.token}); err != nil {
		ln.Close()
		return nil, err
	}
	return a, nil
}

// URL is the API's base URL.
func (a *Server) URL() string { return a.url }

// Token is the token state changes need.
func (a *Server) Token() string { return a.token }

// Serve serves until ctx ends.
func (a *Server) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		a.srv.Shutdown(sctx)
	})
	defer stop()
	if err := a.srv.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the server at once.
func (a *Server) Close() error {
	err := a.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (a *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loopback.SetHeaders(w.Header(), "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		if !loopback.HostAllowed(r.Host, a.port) {
			httpjson.Error(w, http.StatusForbidden, "host not allowed: use "+a.url)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxAPIBody)
		next.ServeHTTP(w, r)
	})
}

func (a *Server) needToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get(loopback.TokenHeader)
		if got == "" {
			if v := r.Header.Get("Authorization"); len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
				got = strings.TrimSpace(v[7:])
			}
		}
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(a.token)) != 1 {
			httpjson.Error(w, http.StatusUnauthorized, "missing or wrong API token (see "+a.info+")")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *Server) status(w http.ResponseWriter, r *http.Request) {
	st, err := a.m.Status()
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, st)
}

func (a *Server) page(w http.ResponseWriter, r *http.Request) {
	st, err := a.m.Status()
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	data := pageData{Status: st, Chart: chart(st.History), Map: swarmMap(st.Swarm, 480), Now: a.now().UTC().Format(time.DateTime) + " UTC",
		Plots: []Plot{
			plot(st.Throughput, "pages stored per second", func(p ThroughputPoint) float64 { return p.Pages }),
			plot(st.Throughput, "tasks (results stored) per second", func(p ThroughputPoint) float64 { return p.Tasks }),
		}}
	if err := pageTemplate.Execute(w, data); err != nil {
		a.log.Warn("Status page not rendered", "err", err)
	}
}

func (a *Server) seeds(w http.ResponseWriter, r *http.Request) {
	var req SeedsRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		httpjson.Error(w, http.StatusBadRequest, "body must be {\"urls\": [...]}: "+err.Error())
		return
	}
	added, err := a.m.AddSites(req.URLs)
	if errors.Is(err, channels.ErrBadSeed) {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	resp := SeedsResponse{Created: []string{}, Known: added.Known, OptedOut: added.OptedOut}
	for _, c := range added.Created {
		resp.Created = append(resp.Created, c.ID)
	}
	httpjson.Write(w, http.StatusOK, resp)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// withdrawKey takes a volunteer's request-signing key out of the key
// directory (POST /api/keys/withdraw).
func (a *Server) withdrawKey(w http.ResponseWriter, r *http.Request) {
	var req WithdrawRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Key == "" || req.Reason == "" {
		http.Error(w, "want {\"key\": peer ID or keyid, \"reason\": why}", http.StatusBadRequest)
		return
	}
	if err := a.m.WithdrawKey(req.Key, req.Reason); err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, botkeys.ErrNotFound) {
			code = http.StatusNotFound
		}
		http.Error(w, err.Error(), code)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// optOutNames decodes an OptOutRequest naming at least one host.
func optOutNames(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var req OptOutRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || len(req.Names) == 0 {
		httpjson.Error(w, http.StatusBadRequest, "body must be {\"names\": [host, domain or URL, ...]}")
		return nil, false
	}
	return req.Names, true
}

// optOut puts sites on the opt-out list (POST /api/optouts).
func (a *Server) optOut(w http.ResponseWriter, r *http.Request) {
	names, ok := optOutNames(w, r)
	if !ok {
		return
	}
	out, err := a.m.OptOut(names, channels.OptOutByOperator)
	switch {
	case errors.Is(err, channels.ErrBadSeed):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case err != nil:
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
	default:
		httpjson.Write(w, http.StatusOK, OptOutResponse{OptedOut: out})
	}
}

// optIn takes sites off the opt-out list (POST /api/optouts/remove).
func (a *Server) optIn(w http.ResponseWriter, r *http.Request) {
	names, ok := optOutNames(w, r)
	if !ok {
		return
	}
	lifted, err := a.m.OptIn(names)
	switch {
	case errors.Is(err, channels.ErrBadSeed):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case err != nil:
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
	default:
		httpjson.Write(w, http.StatusOK, OptInResponse{Lifted: append([]string{}, lifted...)})
	}
}

// optOuts lists the opt-outs (GET /api/optouts).
func (a *Server) optOuts(w http.ResponseWriter, r *http.Request) {
	list, err := a.m.OptOuts()
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, OptOutList{OptOuts: append([]channels.OptOut{}, list...)})
}

// listenLoopback listens on addr, which must be a loopback address.
func listenLoopback(addr string) (net.Listener, error) {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("API address %q: %w", addr, err)
	}
	if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("API address %q must be a loopback IP such as 127.0.0.1", addr)
	}
	return net.Listen("tcp", addr)
}
