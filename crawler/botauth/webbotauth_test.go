package botauth_test

import (
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
	"github.com/hivecrawl/hivecrawl/testkit/webbotauth"
)

// TestWebBotAuthVerifier checks our signatures with independent npm
// verifiers (testkit/webbotauth), which fetch the key directory from the
// manager's registry through the request's Signature-Agent: the RFC 9421
// library http-message-signatures for both Signature-Agent forms, and the
// web-bot-auth package's own verifier for the legacy form it knows. Then
// it withdraws the key and checks that the same requests no longer
// verify. Node.js and npm must be installed (scripts/test.sh installs
// them); the packages are installed once into the user's cache.
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

	// The site records the signed requests as they arrived.
	rc := &webbotauth.Recorder{}
	site := httptest.NewServer(rc)
	defer site.Close()

	send := func(opts ...botauth.SignerOption) webbotauth.Request {
		t.Helper()
		signer, err := botauth.NewSigner(key, manager.URL, 0, opts...)
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
		rec := got[len(got)-1]
		for _, h := range []string{"signature", "signature-input", "signature-agent"} {
			if rec.Headers[h] == "" {
				t.Fatalf("the site saw no %s header: %v", h, rec.Headers)
			}
		}
		return rec
	}
	dict, legacy := send(), send(botauth.WithLegacyAgent())
	if want := `sig1="` + manager.URL + `"`; dict.Headers["signature-agent"] != want {
		t.Fatalf("Signature-Agent %q, want the dictionary form %q", dict.Headers["signature-agent"], want)
	}
	tampered := dict
	tampered.URL = strings.Replace(dict.URL, "127.0.0.1", "localhost", 1)

	for _, c := range []struct {
		name   string
		rec    webbotauth.Request
		verify func(testing.TB, webbotauth.Request) (bool, webbotauth.Verdict)
	}{
		{"http-message-signatures, dictionary form", dict, v.Verify},
		{"http-message-signatures, legacy form", legacy, v.Verify},
		{"web-bot-auth, legacy form", legacy, v.VerifyReference},
	} {
		if ok, out := c.verify(t, c.rec); !ok || out.KeyID != keyid {
			t.Errorf("%s: did not verify our signature: %+v (keyid %s)", c.name, out, keyid)
		}
	}
	// web-bot-auth 0.1.3 signs and checks "signature-agent";key="sig1"
	// over the whole field, not the member: the dictionary form fails
	// there, for every signer that follows RFC 9421.
	_, out := v.VerifyReference(t, dict)
	t.Logf("web-bot-auth on the dictionary form: %+v", out)

	if ok, out := v.Verify(t, tampered); ok || !strings.Contains(out.Error, "invalid signature") {
		t.Fatalf("a request whose authority was changed verified: %+v", out)
	}

	if err := reg.Withdraw(keyid, "cheated", time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, out := v.Verify(t, dict); ok || !strings.Contains(out.Error, "key not found in directory") {
		t.Fatalf("a request signed with a withdrawn key still verified: %+v", out)
	}
	if ok, out := v.VerifyReference(t, legacy); ok || !strings.Contains(out.Error, "key not found in directory") {
		t.Fatalf("web-bot-auth still verified a request signed with a withdrawn key: %+v", out)
	}
}
