package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/manager/site"
)

// get fetches url and returns its status, content type and body.
func get(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// TestSignedByDefault starts a network's manager with no signing option:
// it serves the key directory, the bot page and the signature agent card
// on an address of its own, names that origin in the profile's
// Signature-Agent and the bot page in the default User-Agent, and keeps
// the address across a restart, so volunteers' requests stay verifiable.
func TestSignedByDefault(t *testing.T) {
	dir := t.TempDir()
	opts := Options{
		Dir:           dir,
		Listen:        []string{"/ip4/127.0.0.1/tcp/0"},
		AllowLoopback: true,
		Name:          "testnet",
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Site:          SiteOptions{Contact: "bots@operator.example"},
	}
	m, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	go m.dir.Serve()
	p, err := m.WriteProfile()
	if err != nil {
		t.Fatal(err)
	}
	origin := strings.TrimSuffix(m.BotPageURL(), "/")
	if !strings.HasPrefix(origin, "http://127.0.0.1:") || p.SignatureAgent != origin {
		t.Fatalf("profile's Signature-Agent %q, bot page %q: want the site server's origin on the listen IP", p.SignatureAgent, m.BotPageURL())
	}
	if ua := m.opts.Politeness.Policy.UserAgent; !strings.HasSuffix(ua, "(+"+m.BotPageURL()+")") {
		t.Errorf("default User-Agent %q does not name the bot page", ua)
	}
	if code, ctype, _ := get(t, m.DirectoryURL()); code != http.StatusOK || ctype != botauth.DirectoryContentType {
		t.Errorf("key directory: %d %s", code, ctype)
	}
	code, ctype, page := get(t, m.BotPageURL())
	if code != http.StatusOK || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("bot page: %d %s", code, ctype)
	}
	text := html.UnescapeString(string(page))
	for _, want := range []string{m.opts.Politeness.Policy.UserAgent, ">hivecrawl<", "mailto:bots@operator.example", m.DirectoryURL(),
		"Disallow: /", `sig1="` + origin + `"`, origin + site.CardPath} {
		if !strings.Contains(text, want) {
			t.Errorf("bot page lacks %q", want)
		}
	}
	code, ctype, b := get(t, origin+site.CardPath)
	var card site.Card
	if code != http.StatusOK || ctype != "application/json" || json.Unmarshal(b, &card) != nil {
		t.Fatalf("card: %d %s %s", code, ctype, b)
	}
	if card.ProductToken != "hivecrawl" || card.ExpectedUserAgent != m.opts.Politeness.Policy.UserAgent || card.JWKSURI != m.DirectoryURL() ||
		card.About != m.BotPageURL() || card.Purpose != "search" || card.Contact != "bots@operator.example" {
		t.Errorf("card %+v", card)
	}
	if code, _, _ := get(t, origin+"/other"); code != http.StatusNotFound {
		t.Errorf("GET /other = %d, want 404", code)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// A restart serves the same origin.
	m2, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if got := strings.TrimSuffix(m2.BotPageURL(), "/"); got != origin {
		t.Errorf("after a restart the origin is %s, was %s", got, origin)
	}
}

// TestUnsigned: only an explicit Unsigned sends volunteers out unsigned,
// with a warning; naming a directory beside it is refused; solo mode, whose
// one crawler is the user's, serves no site server.
func TestUnsigned(t *testing.T) {
	var logs bytes.Buffer
	base := Options{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}

	o := base
	o.Dir, o.Site.Unsigned = t.TempDir(), true
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.WriteProfile()
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if p.SignatureAgent != "" || m.DirectoryURL() != "" {
		t.Errorf("unsigned manager: profile Signature-Agent %q, directory %q", p.SignatureAgent, m.DirectoryURL())
	}
	if !strings.Contains(logs.String(), "UNSIGNED") {
		t.Errorf("no warning logged: %s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(o.Dir, SiteAddrFile)); !os.IsNotExist(err) {
		t.Errorf("unsigned manager kept a site address: %v", err)
	}

	o = base
	o.Dir, o.Site.Unsigned, o.Site.Directory = t.TempDir(), true, "127.0.0.1:0"
	if m, err := New(context.Background(), o); err == nil || !strings.Contains(err.Error(), "unsigned") {
		if m != nil {
			m.Close()
		}
		t.Errorf("unsigned with a directory: %v", err)
	}

	o = base
	o.Dir, o.Solo = t.TempDir(), true
	m, err = New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.DirectoryURL() != "" {
		t.Errorf("solo mode serves a key directory at %s", m.DirectoryURL())
	}
}

// TestSiteOptOutRecorded: the site server mounts the self-service opt-out,
// and a proof served by the site opts it out in the channel database,
// with the proof named as the reason.
func TestSiteOptOutRecorded(t *testing.T) {
	m := newManagerWith(t, t.TempDir(), &clock{t: time.Now().UTC()}, func(o *Options) { o.Site.Directory = "127.0.0.1:0" })
	go m.dir.Serve()
	var token atomic.Value
	token.Store("")
	owner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == site.OptOutFile {
			io.WriteString(w, token.Load().(string)+"\n")
			return
		}
		http.NotFound(w, r)
	}))
	defer owner.Close()
	post := func(path string, form url.Values) string {
		resp, err := http.PostForm(m.dir.Origin()+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s = %s: %s", path, resp.Status, b)
		}
		return html.UnescapeString(string(b))
	}
	got := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(post(site.OptOutPath, url.Values{"site": {owner.URL}}))
	if got == nil {
		t.Fatal("no token given")
	}
	token.Store(got[1])
	post(site.OptOutPath+"/confirm", url.Values{"site": {owner.URL}, "token": {got[1]}})
	o, ok, err := m.db.OptedOut(strings.TrimPrefix(owner.URL, "http://"))
	if err != nil || !ok || o.By != "site: proven by token at "+owner.URL+site.OptOutFile {
		t.Fatalf("opt-out recorded as %+v, %v, %v", o, ok, err)
	}
}
