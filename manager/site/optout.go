package site

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/indexnow"
)

// A site owner's self-service opt-out, on the manager's site server (the
// key directory's, manager.Options.Site.Directory). The owner names the site; the
// manager answers with a token bound to it and a file to put on it,
// OptOutFile; once the file is there the owner confirms, the manager
// fetches it from the site (public addresses only, bounded in size, time
// and redirects, all on the site's host) and, when it holds the token,
// opts the site out (OptOutConfig.Record), as IndexNow proves a key.
//
// Tokens are stateless: an HMAC, under a key derived from the operator's
// key, of the site's name and origin and the token's expiry. So every
// manager of a network (they share the operator's key) checks any
// manager's tokens, and a restart loses none; a token for one site
// proves nothing for another, and none outlives OptOutTokenLife.
//
// What the owner proves is that it can serve a file on the origin it
// named. A registrable domain's own host (example.com) opts out the
// whole domain, as the list keeps it (channels.ParseOptOut).

// Paths of the self-service opt-out.
const (
	// OptOutPath is the page where a site owner asks for a token
	// (GET, POST) and confirms (POST OptOutPath + "/confirm").
	OptOutPath = "/optout"
	// OptOutFile is where the owner puts the token on its site.
	OptOutFile = "/.well-known/hivecrawl-optout.txt"
)

// Bounds of the self-service opt-out.
const (
	// OptOutTokenLife is how long a token may be confirmed.
	OptOutTokenLife = 24 * time.Hour
	// MaxOptOutFile is the largest OptOutFile read.
	MaxOptOutFile = 4 << 10
	// maxOptOutForm bounds a form's body.
	maxOptOutForm = 4 << 10
	// maxSiteInput bounds what the owner types as its site.
	maxSiteInput = 2048
	// Confirms per site: a burst of 5, then one a minute; each fetches
	// OptOutFile once. At most 10,000 sites are tracked.
	optOutConfirmBurst = 5
	optOutConfirmEvery = time.Minute
	maxOptOutSites     = 10_000
)

// OptOutConfig is what the self-service opt-out needs of the manager.
type OptOutConfig struct {
	// Secret is the operator's private key, raw: the tokens' HMAC key is
	// derived from it.
	Secret []byte
	// Record opts the site name out (a domain covers its hosts), giving
	// the reason it keeps beside it.
	Record func(name, reason string) error
	// Fetcher fetches the proof.
	Fetcher Fetcher
	Now     func() time.Time
	Log     *slog.Logger
}

// optOutSite serves the self-service opt-out.
type optOutSite struct {
	OptOutConfig
	key    []byte // the tokens' HMAC key
	limits *indexnow.Limiter
}

// OptOutRoutes registers the self-service opt-out's pages on mux.
func OptOutRoutes(mux *http.ServeMux, c OptOutConfig) {
	s := newOptOutSite(c)
	mux.HandleFunc("GET "+OptOutPath, s.form)
	mux.HandleFunc("POST "+OptOutPath, s.ask)
	mux.HandleFunc("POST "+OptOutPath+"/confirm", s.confirm)
}

func newOptOutSite(c OptOutConfig) *optOutSite {
	mac := hmac.New(sha256.New, c.Secret)
	mac.Write([]byte("hivecrawl self-service opt-out token key"))
	return &optOutSite{OptOutConfig: c, key: mac.Sum(nil),
		limits: indexnow.NewLimiter(optOutConfirmBurst, optOutConfirmEvery, maxOptOutSites)}
}

// optOutTarget is a site as its owner named it.
type optOutTarget struct {
	// Name and Domain are as the opt-out list keeps them.
	Name   string
	Domain bool
	// Origin is where OptOutFile is fetched: scheme://host[:port].
	Origin string
}

// parseOptOutSite reads the site an owner typed: a host, a domain or a
// URL on it. Without a scheme, https is meant.
func parseOptOutSite(s string) (optOutTarget, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxSiteInput {
		return optOutTarget{}, errors.New("name your site: a host name such as www.example.com, or its address")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	seed, id, err := channels.ParseSeed(s)
	if err != nil {
		return optOutTarget{}, fmt.Errorf("%q is not a web site's address: %w", s, err)
	}
	name, dom, err := channels.ParseOptOut(seed)
	if err != nil {
		return optOutTarget{}, err
	}
	u, _ := url.Parse(seed)
	return optOutTarget{Name: name, Domain: dom, Origin: u.Scheme + "://" + id}, nil
}

// token returns the token for target that expires at exp.
func (s *optOutSite) token(t optOutTarget, exp time.Time) string {
	mac := hmac.New(sha256.New, s.key)
	fmt.Fprintf(mac, "%s\n%s\n%d", t.Name, t.Origin, exp.Unix())
	return "hivecrawl-optout-" + strconv.FormatInt(exp.Unix(), 10) + "-" + hex.EncodeToString(mac.Sum(nil)[:16])
}

// checkToken reports why token is not a live token for t at now, or "".
func (s *optOutSite) checkToken(t optOutTarget, token string, now time.Time) string {
	rest, ok := strings.CutPrefix(token, "hivecrawl-optout-")
	exp, _, ok2 := strings.Cut(rest, "-")
	unix, err := strconv.ParseInt(exp, 10, 64)
	switch {
	case !ok || !ok2 || err != nil:
		return "this is not a token this crawler gave"
	case subtle.ConstantTimeCompare([]byte(token), []byte(s.token(t, time.Unix(unix, 0)))) != 1:
		return "this token was given for another site: ask for one for " + t.Origin
	case !now.Before(time.Unix(unix, 0)):
		return "this token expired: ask for a new one"
	}
	return ""
}

// fileHolds reports whether an OptOutFile body holds token on a line of
// its own (spaces around it, CRLF line ends and a byte-order mark
// allowed; other lines are left alone, so one file can serve several
// crawlers).
func fileHolds(body []byte, token string) bool {
	if len(body) > MaxOptOutFile || token == "" {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF"))))
	sc.Buffer(make([]byte, 0, 512), MaxOptOutFile)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == token {
			return true
		}
	}
	return false
}

// fetchProof fetches t's OptOutFile and reports why it does not hold
// token, or "".
func (s *optOutSite) fetchProof(ctx context.Context, t optOutTarget, token string) string {
	file := t.Origin + OptOutFile
	body, err := s.Fetcher.Fetch(ctx, file, MaxOptOutFile)
	switch {
	case err != nil:
		return err.Error()
	case len(body) > MaxOptOutFile:
		return fmt.Sprintf("%s is longer than %d bytes", file, MaxOptOutFile)
	case !fileHolds(body, token):
		return fmt.Sprintf("%s does not hold the token on a line of its own", file)
	}
	return ""
}

// optOutPage is what the page template shows.
type optOutPage struct {
	Site, Error, Done string
	// Ask: the token, the file it goes in and until when it holds.
	Token, File, Expires string
	Domain               bool
	Name                 string
}

func (s *optOutSite) render(w http.ResponseWriter, code int, p optOutPage) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(code)
	if err := optOutTemplate.Execute(w, p); err != nil {
		s.Log.Debug("Opt-out page not rendered", "err", err)
	}
}

// form shows the page where an owner names its site.
func (s *optOutSite) form(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, optOutPage{})
}

// readForm parses a POSTed form of at most maxOptOutForm bytes.
func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxOptOutForm)
	return r.ParseForm()
}

// ask gives the owner a token for the site it named.
func (s *optOutSite) ask(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.render(w, http.StatusBadRequest, optOutPage{Error: "the form could not be read"})
		return
	}
	site := r.PostFormValue("site")
	t, err := parseOptOutSite(site)
	if err != nil {
		s.render(w, http.StatusBadRequest, optOutPage{Site: site, Error: err.Error()})
		return
	}
	exp := s.Now().Add(OptOutTokenLife).Truncate(time.Second)
	s.render(w, http.StatusOK, optOutPage{Site: t.Origin, Name: t.Name, Domain: t.Domain, Token: s.token(t, exp),
		File: t.Origin + OptOutFile, Expires: exp.UTC().Format("2006-01-02 15:04 UTC")})
}

// confirm fetches the proof and opts the site out when it holds.
func (s *optOutSite) confirm(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.render(w, http.StatusBadRequest, optOutPage{Error: "the form could not be read"})
		return
	}
	site, token := r.PostFormValue("site"), strings.TrimSpace(r.PostFormValue("token"))
	t, err := parseOptOutSite(site)
	if err != nil {
		s.render(w, http.StatusBadRequest, optOutPage{Site: site, Error: err.Error()})
		return
	}
	now := s.Now()
	if why := s.checkToken(t, token, now); why != "" {
		s.render(w, http.StatusForbidden, optOutPage{Site: t.Origin, Error: why})
		return
	}
	if ok, wait := s.limits.Allow(t.Name, now); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+1)))
		s.render(w, http.StatusTooManyRequests, optOutPage{Site: t.Origin, Token: token, File: t.Origin + OptOutFile,
			Error: fmt.Sprintf("too many tries for %s: try again in %d s", t.Name, int(wait.Seconds()+1))})
		return
	}
	if why := s.fetchProof(r.Context(), t, token); why != "" {
		s.Log.Info("Self-service opt-out not proven", "site", t.Origin, "why", why)
		s.render(w, http.StatusForbidden, optOutPage{Site: t.Origin, Token: token, File: t.Origin + OptOutFile, Error: why})
		return
	}
	if err := s.Record(t.Name, "site: proven by token at "+t.Origin+OptOutFile); err != nil {
		s.Log.Warn("Self-service opt-out not recorded", "site", t.Origin, "err", err)
		s.render(w, http.StatusInternalServerError, optOutPage{Site: t.Origin, Error: "the opt-out could not be recorded; try again later"})
		return
	}
	done := t.Name
	if t.Domain {
		done += " and every host under it"
	}
	s.render(w, http.StatusOK, optOutPage{Site: t.Origin, Done: done})
}

var optOutTemplate = template.Must(template.New("optout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Opt out of Hivecrawl</title>
<style>body{font:16px/1.5 sans-serif;max-width:40em;margin:2em auto;padding:0 1em}code,input{font:inherit}.err{color:#a00}</style>
</head><body>
<h1>Opt your site out of Hivecrawl</h1>
{{if .Done}}<p><strong>Done: {{.Done}} opted out.</strong> Hivecrawl's volunteers send it no request from now on; crawls under way stop within a minute. You may remove the file.</p>
{{else}}{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
{{if .Token}}<ol>
<li>Put this line in <code>{{.File}}</code>, served as plain text:<br><input name="shown" size="60" readonly value="{{.Token}}"></li>
<li>Then confirm, before {{.Expires}}{{if .Name}} (opts out <code>{{.Name}}</code>{{if .Domain}} and every host under it{{end}}){{end}}:
<form method="post" action="/optout/confirm"><input type="hidden" name="site" value="{{.Site}}"><input type="hidden" name="token" value="{{.Token}}"><button>Confirm</button></form></li>
</ol>
{{else}}<p>Name your site: Hivecrawl gives you a line to put in a file on it, to prove it is yours. Once it is there, confirm, and no volunteer of this network requests anything from the site again. A registrable domain (<code>example.com</code>) opts out every host under it.</p>
<form method="post" action="/optout"><input name="site" size="40" placeholder="https://www.example.com" value="{{.Site}}"> <button>Get the line</button></form>
{{end}}{{end}}
</body></html>
`))
