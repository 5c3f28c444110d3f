package web

import (
	"net/http"
	"net/url"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
)

// cookieName is the session cookie's name for the server at base. Cookies
// are per host, not per port, so two clients on one machine (two users, or
// tests) need different names.
func cookieName(base string) string {
	name := "hivecrawl_session"
	if u, err := url.Parse(base); err == nil && u.Port() != "" {
		name += "_" + u.Port()
	}
	return name
}

func (u *UI) needToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !u.opts.Auth.Authorized(r) {
			httpjson.Error(w, http.StatusUnauthorized, "missing or wrong API token (header X-Hivecrawl-Token)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a browser says r comes from the page itself
// (or from no page at all, as from the CLI). Browsers without Fetch
// Metadata fall back on the cookie's SameSite and the absence of CORS.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

// sessionReads reports whether r is a read the page may make on its
// session alone: a same-origin request with a live session cookie.
func (u *UI) sessionReads(r *http.Request) bool {
	if !sameOrigin(r) {
		return false
	}
	_, ok := u.signedIn(r)
	return ok
}

// signedIn reports whether r carries a live session cookie.
func (u *UI) signedIn(r *http.Request) (id string, ok bool) {
	c, err := r.Cookie(u.cookie)
	if err != nil {
		return "", false
	}
	return c.Value, u.sessions.valid(c.Value, u.opts.Now())
}

// SessionInfo is the answer to GET /ui/session.
type SessionInfo struct {
	SignedIn bool   `json:"signed_in"`
	Token    string `json:"token,omitempty"`
}

func (u *UI) session(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		httpjson.Error(w, http.StatusForbidden, "cross-site request refused")
		return
	}
	if _, ok := u.signedIn(r); !ok {
		httpjson.Write(w, http.StatusOK, SessionInfo{})
		return
	}
	httpjson.Write(w, http.StatusOK, SessionInfo{SignedIn: true, Token: u.opts.Auth.Token()})
}

// LoginCode is the answer to POST /ui/login-code.
type LoginCode struct {
	// URL opens the page signed in; it works once, within CodeTTL.
	URL string `json:"url"`
}

func (u *UI) loginCode(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if !validNext(next) {
		next = ""
	}
	q := url.Values{"code": {u.sessions.code(u.opts.Now())}}
	if next != "" {
		q.Set("next", next)
	}
	httpjson.Write(w, http.StatusOK, LoginCode{URL: u.opts.Auth.URL() + "/ui/login?" + q.Encode()})
}

// validNext accepts only the page's own fragments ("settings"), so a
// sign-in link cannot send the browser elsewhere.
func validNext(s string) bool {
	switch s {
	case "dashboard", "settings", "credits", "solo":
		return true
	}
	return false
}

func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	id, ok := u.sessions.redeem(r.URL.Query().Get("code"), u.opts.Now())
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("This sign-in link has expired or was used already.\n" +
			"Open the dashboard again from the Hivecrawl tray icon, or run 'hivecrawl open'.\n"))
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: u.cookie, Value: id, Path: "/", MaxAge: int(SessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	dest := "/#dashboard"
	if n := r.URL.Query().Get("next"); validNext(n) {
		dest = "/#" + n
	}
	http.Redirect(w, r, dest, http.StatusSeeOther)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request) {
	if id, ok := u.signedIn(r); ok {
		u.sessions.end(id)
	}
	http.SetCookie(w, &http.Cookie{Name: u.cookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	httpjson.Write(w, http.StatusOK, SessionInfo{})
}
