package botauth

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testAgent = "https://manager.example"

// signedRequest returns a GET of url signed by a new key, and a directory
// holding that key.
func signedRequest(t *testing.T, url, agent string, opts ...SignerOption) (*http.Request, Directory, *Signer) {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(key, agent, 0, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if s.KeyID() != Thumbprint(pub) {
		t.Fatalf("KeyID %s is not the key's thumbprint %s", s.KeyID(), Thumbprint(pub))
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	return req, Directory{Keys: []JWK{NewJWK(pub)}}, s
}

var sigParam = regexp.MustCompile(`;(created|expires)=(\d+)`)

func TestSignHeaders(t *testing.T) {
	cases := []struct {
		name       string
		agent      string
		nonce      bool
		legacy     bool
		components string
	}{
		{"with agent", testAgent, false, false, `("@authority" "signature-agent";key="sig1")`},
		{"without agent", "", false, false, `("@authority")`},
		{"with nonce", testAgent, true, false, `("@authority" "signature-agent";key="sig1")`},
		{"legacy agent", testAgent, false, true, `("@authority" "signature-agent")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []SignerOption
			if c.nonce {
				opts = append(opts, WithNonce())
			}
			if c.legacy {
				opts = append(opts, WithLegacyAgent())
			}
			req, dir, s := signedRequest(t, "https://Site.Example:443/a?b=c", c.agent, opts...)
			if req.Host != "site.example" {
				t.Errorf("Host = %q, want the normalized site.example", req.Host)
			}
			wantAgent := ""
			switch {
			case c.agent != "" && c.legacy:
				wantAgent = `"` + c.agent + `"`
			case c.agent != "":
				wantAgent = `sig1="` + c.agent + `"`
			}
			if got := req.Header.Get(AgentHeader); got != wantAgent {
				t.Errorf("Signature-Agent = %q, want %q", got, wantAgent)
			}
			if got, err := Agent(req.Header); err != nil || got != c.agent {
				t.Errorf("Agent = %q, %v, want %q", got, err, c.agent)
			}
			in := req.Header.Get("Signature-Input")
			for _, want := range []string{Label + "=" + c.components, `;keyid="` + s.KeyID() + `"`, `;alg="ed25519"`, `;tag="web-bot-auth"`} {
				if !strings.Contains(in, want) {
					t.Errorf("Signature-Input %s lacks %s", in, want)
				}
			}
			if got := strings.Contains(in, ";nonce="); got != c.nonce {
				t.Errorf("Signature-Input %s: nonce present %v, want %v", in, got, c.nonce)
			}
			times := map[string]int64{}
			for _, m := range sigParam.FindAllStringSubmatch(in, -1) {
				times[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			}
			if d := times["expires"] - times["created"]; d != int64(DefaultValidity/time.Second) {
				t.Errorf("expires - created = %ds, want %v (%s)", d, DefaultValidity, in)
			}
			if !strings.HasPrefix(req.Header.Get("Signature"), Label+"=:") {
				t.Errorf("Signature = %q", req.Header.Get("Signature"))
			}
			if err := Verify(req, dir, time.Now()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			// Signing again replaces the signature rather than adding one.
			if err := s.Sign(req); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(req.Header.Get("Signature-Input"), "="+"("); n != 1 {
				t.Errorf("re-signed request has %d signatures: %s", n, req.Header.Get("Signature-Input"))
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name   string
		change func(r *http.Request, dir *Directory)
		now    time.Time
		want   error // nil: verifies
	}{
		{name: "untouched", change: func(*http.Request, *Directory) {}, now: now},
		{name: "default port in Host", change: func(r *http.Request, _ *Directory) { r.Host = "site.example:443" }, now: now},
		{name: "upper-case Host", change: func(r *http.Request, _ *Directory) { r.Host = "SITE.example" }, now: now},
		{name: "signed by the clock a little ahead", change: func(*http.Request, *Directory) {}, now: now.Add(-30 * time.Second)},
		{name: "authority tampered", change: func(r *http.Request, _ *Directory) { r.Host = "other.example" }, now: now, want: ErrInvalidSignature},
		{name: "port tampered", change: func(r *http.Request, _ *Directory) { r.Host = "site.example:8443" }, now: now, want: ErrInvalidSignature},
		{name: "agent tampered", change: func(r *http.Request, _ *Directory) { r.Header.Set(AgentHeader, `sig1="https://evil.example"`) }, now: now, want: ErrInvalidSignature},
		{name: "agent as a bare String", change: func(r *http.Request, _ *Directory) { r.Header.Set(AgentHeader, `"https://manager.example"`) }, now: now, want: ErrInvalidSignature},
		{name: "agent member renamed", change: func(r *http.Request, _ *Directory) { r.Header.Set(AgentHeader, `sig2="https://manager.example"`) }, now: now, want: ErrInvalidSignature},
		{name: "agent member not a String", change: func(r *http.Request, _ *Directory) { r.Header.Set(AgentHeader, `sig1=("https://manager.example")`) }, now: now, want: ErrInvalidSignature},
		{name: "another agent member beside", change: func(r *http.Request, _ *Directory) {
			r.Header.Set(AgentHeader, `sig0="https://other.example", `+r.Header.Get(AgentHeader))
		}, now: now},
		{name: "agent not covered", change: func(r *http.Request, _ *Directory) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), ` "signature-agent";key="sig1"`, "", 1))
		}, now: now, want: ErrInvalidSignature},
		{name: "agent removed", change: func(r *http.Request, _ *Directory) { r.Header.Del(AgentHeader) }, now: now, want: ErrInvalidSignature},
		{name: "signature tampered", change: func(r *http.Request, _ *Directory) {
			s := r.Header.Get("Signature")
			i := len(Label) + 3
			c := byte('A')
			if s[i] == 'A' {
				c = 'B'
			}
			r.Header.Set("Signature", s[:i]+string(c)+s[i+1:])
		}, now: now, want: ErrInvalidSignature},
		{name: "created tampered", change: func(r *http.Request, _ *Directory) {
			r.Header.Set("Signature-Input", sigParam.ReplaceAllStringFunc(r.Header.Get("Signature-Input"), func(m string) string {
				if strings.HasPrefix(m, ";created=") {
					return ";created=1"
				}
				return m
			}))
		}, now: now, want: ErrInvalidSignature},
		{name: "expired", change: func(*http.Request, *Directory) {}, now: now.Add(DefaultValidity + 2*time.Second), want: ErrExpired},
		{name: "created in the future", change: func(*http.Request, *Directory) {}, now: now.Add(-5 * time.Minute), want: ErrNotYetValid},
		{name: "key not in directory", change: func(_ *http.Request, d *Directory) { d.Keys = nil }, now: now, want: ErrUnknownKey},
		{name: "other key in directory", change: func(_ *http.Request, d *Directory) {
			pub, _, _ := ed25519.GenerateKey(nil)
			d.Keys = []JWK{NewJWK(pub)}
		}, now: now, want: ErrUnknownKey},
		{name: "no signature", change: func(r *http.Request, _ *Directory) {
			r.Header.Del("Signature")
			r.Header.Del("Signature-Input")
		}, now: now, want: ErrNoSignature},
		{name: "other tag", change: func(r *http.Request, _ *Directory) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `tag="web-bot-auth"`, `tag="other"`, 1))
		}, now: now, want: ErrNoSignature},
		{name: "Signature missing", change: func(r *http.Request, _ *Directory) { r.Header.Del("Signature") }, now: now, want: ErrInvalidSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, dir, _ := signedRequest(t, "https://site.example/page", testAgent)
			c.change(req, &dir)
			err := Verify(req, dir, c.now)
			t.Logf("Verify: %v", err)
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("Verify: %v", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

func TestNewSignerRejects(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	cases := []struct {
		name  string
		key   ed25519.PrivateKey
		agent string
	}{
		{"short key", key[:10], testAgent},
		{"ftp agent", key, "ftp://manager.example"},
		{"relative agent", key, "manager.example"},
		{"no host", key, "https://"},
		{"user info", key, "https://user:pw@manager.example"},
		{"fragment", key, "https://manager.example/#x"},
		{"quote", key, "https://manager.example/\"x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewSigner(c.key, c.agent, time.Minute); err == nil {
				t.Errorf("NewSigner accepted key of %d bytes, agent %q", len(c.key), c.agent)
			}
		})
	}
}

func TestSignRejects(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	s, err := NewSigner(key, testAgent, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sign(&http.Request{Header: http.Header{}}); err == nil {
		t.Error("Sign accepted a request without URL")
	}
	req, _ := http.NewRequest(http.MethodGet, "/relative", nil)
	if err := s.Sign(req); err == nil {
		t.Error("Sign accepted a request without host")
	}
}

// FuzzVerifyHeaders feeds Verify and Agent hostile Signature-Agent and
// Signature-Input fields, as a site that checks requests receives them:
// no panic, and an answer that is either a verified request or one of the
// package's errors. The corpus starts from a genuine signature.
func FuzzVerifyHeaders(f *testing.F) {
	pub, key, _ := ed25519.GenerateKey(nil)
	s, err := NewSigner(key, testAgent, 0)
	if err != nil {
		f.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "https://site.example/page", nil)
	if err := s.Sign(req); err != nil {
		f.Fatal(err)
	}
	dir := Directory{Keys: []JWK{NewJWK(pub)}}
	f.Add(req.Header.Get(AgentHeader), req.Header.Get("Signature-Input"), req.Header.Get("Signature"))
	f.Add(`"https://manager.example"`, `sig1=("@authority" "signature-agent");tag="web-bot-auth"`, "sig1=:AA==:")
	f.Add(`sig1=("x")`, `sig1=("signature-agent";key="sig1");tag="web-bot-auth"`, "")
	f.Add(`sig1=?1`, `sig1=("signature-agent";key=?0);tag="web-bot-auth"`, "sig1=:AA==:")
	f.Fuzz(func(t *testing.T, agent, input, sig string) {
		r, _ := http.NewRequest(http.MethodGet, "https://site.example/page", nil)
		for name, v := range map[string]string{AgentHeader: agent, "Signature-Input": input, "Signature": sig} {
			if v != "" {
				r.Header.Set(name, v)
			}
		}
		if _, err := Agent(r.Header); err != nil && !errors.Is(err, ErrNoSignature) && !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("Agent: unexpected error %v", err)
		}
		err := Verify(r, dir, time.Now())
		if err == nil {
			if input != req.Header.Get("Signature-Input") || sig != req.Header.Get("Signature") {
				t.Fatalf("a changed signature verified: %q %q", input, sig)
			}
			return
		}
		for _, want := range []error{ErrNoSignature, ErrInvalidSignature, ErrUnknownKey, ErrExpired, ErrNotYetValid} {
			if errors.Is(err, want) {
				return
			}
		}
		t.Fatalf("Verify: unexpected error %v", err)
	})
}
