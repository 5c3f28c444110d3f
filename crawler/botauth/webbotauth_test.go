package botauth_test

import (
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/internal/webbotauth"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
)

// TestWebBotAuthVerifier checks our signatures with the web-bot-auth npm
// package's own verifier (internal/webbotauth), which fetches the key
// directory from the manager's registry through the request's
// Signature-Agent; then withdraws the key and checks that the same request
// no longer verifies. Node.js and npm must be installed (scripts/test.sh
// installs them); the package is installed once into the user's cache.
func TestWebBotAuthVerifier(t *testing.T) {
	v := webbotauth.New(t)

	reg, err := botkeys.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyid, err := reg.Certify("12D3KooWVolunteer", pub, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	manager := httptest.NewServer(reg.Handler())
	defer manager.Close()

	// The site records the signed request as it arrived.
	rc := &webbotauth.Recorder{}
	site := httptest.NewServer(rc)
	defer site.Close()

	signer, err := botauth.NewSigner(key, manager.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, site.URL+"/page?q=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := signer.Sign(req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := rc.Requests()
	if len(got) != 1 {
		t.Fatalf("the site recorded %d requests, want 1", len(got))
	}
	rec := got[0]
	for _, h := range []string{"signature", "signature-input", "signature-agent"} {
		if rec.Headers[h] == "" {
			t.Fatalf("the site saw no %s header: %v", h, rec.Headers)
		}
	}

	tampered := rec
	tampered.URL = strings.Replace(rec.URL, "127.0.0.1", "localhost", 1)

	ok, out := v.Verify(t, rec)
	if !ok || out.KeyID != keyid {
		t.Fatalf("web-bot-auth did not verify our signature: %+v (keyid %s)", out, keyid)
	}
	if ok, out := v.Verify(t, tampered); ok || !strings.Contains(out.Error, "invalid signature") {
		t.Fatalf("web-bot-auth verified a request whose authority was changed: %+v", out)
	}

	if err := reg.Withdraw(keyid, "cheated", time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, out := v.Verify(t, rec); ok || !strings.Contains(out.Error, "key not found in directory") {
		t.Fatalf("web-bot-auth still verified a request signed with a withdrawn key: %+v", out)
	}
}
