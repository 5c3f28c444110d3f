package botauth_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
)

// The reference verifier and the versions of its dependencies this test was
// written against, pinned so the test checks the same code every time.
var npmPackages = []string{
	"web-bot-auth@0.1.3",
	"http-message-sig@0.2.0",
	"jsonwebkey-thumbprint@0.1.0",
	"structured-headers@2.0.2",
}

// TestWebBotAuthVerifier checks our signatures with the web-bot-auth npm
// package's own verifier (testdata/verify.mjs), which fetches the key
// directory from the manager's registry through the request's
// Signature-Agent; then withdraws the key and checks that the same request
// no longer verifies. Node.js and npm must be installed (scripts/test.sh
// installs them); the package is installed once into the user's cache.
func TestWebBotAuthVerifier(t *testing.T) {
	modules := webBotAuthModules(t)

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
	type recorded struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	var mu sync.Mutex
	var got *recorded
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorded{URL: "http://" + r.Host + r.URL.RequestURI(), Headers: map[string]string{}}
		for name := range r.Header {
			rec.Headers[strings.ToLower(name)] = r.Header.Get(name)
		}
		mu.Lock()
		got = rec
		mu.Unlock()
	}))
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
	mu.Lock()
	rec := got
	mu.Unlock()
	if rec == nil {
		t.Fatal("the site recorded no request")
	}
	for _, h := range []string{"signature", "signature-input", "signature-agent"} {
		if rec.Headers[h] == "" {
			t.Fatalf("the site saw no %s header: %v", h, rec.Headers)
		}
	}

	work := t.TempDir()
	write := func(name string, r recorded) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	signed := write("signed.json", *rec)
	tampered := *rec
	tampered.URL = strings.Replace(rec.URL, "127.0.0.1", "localhost", 1)
	forged := write("tampered.json", tampered)

	ok, out := runVerifier(t, modules, signed)
	if !ok || out.KeyID != keyid {
		t.Fatalf("web-bot-auth did not verify our signature: %+v (keyid %s)", out, keyid)
	}
	if ok, out := runVerifier(t, modules, forged); ok || !strings.Contains(out.Error, "invalid signature") {
		t.Fatalf("web-bot-auth verified a request whose authority was changed: %+v", out)
	}

	if err := reg.Withdraw(keyid, "cheated", time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, out := runVerifier(t, modules, signed); ok || !strings.Contains(out.Error, "key not found in directory") {
		t.Fatalf("web-bot-auth still verified a request signed with a withdrawn key: %+v", out)
	}
}

// verdict is verify.mjs's output.
type verdict struct {
	OK    bool   `json:"ok"`
	KeyID string `json:"keyid"`
	Error string `json:"error"`
}

// runVerifier runs testdata/verify.mjs on a recorded request, from a
// directory whose node_modules is the installed package set.
func runVerifier(t *testing.T, modules, request string) (bool, verdict) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "verify.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "verify.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "verify.mjs", request)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var v verdict
	if jerr := json.Unmarshal(stdout, &v); jerr != nil {
		t.Fatalf("verify.mjs printed %q (exit: %v; stderr: %s)", stdout, err, stderr.String())
	}
	t.Logf("web-bot-auth on %s: %+v", filepath.Base(request), v)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run verify.mjs: %v", err)
	}
	if v.OK != (err == nil) {
		t.Fatalf("verify.mjs said %+v but exited with %v", v, err)
	}
	return v.OK, v
}

// webBotAuthModules returns a node_modules directory holding npmPackages,
// installing them with npm into the user's cache (outside the repository)
// when they are not there yet. It fails the test when Node.js or npm is
// missing.
func webBotAuthModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: this test checks our signatures with the web-bot-auth npm package; "+
				"run scripts/test.sh, which installs Node.js and npm, or install them (Debian: apt-get install nodejs npm)", tool)
		}
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		var err error
		if cache, err = os.UserCacheDir(); err != nil {
			t.Fatalf("no cache directory for the npm packages: %v", err)
		}
	}
	root := filepath.Join(cache, "hivecrawl-test", "node")
	dir := filepath.Join(root, strings.NewReplacer("@", "-", "/", "-").Replace(strings.Join(npmPackages, "+")))
	modules := filepath.Join(dir, "node_modules")
	if installed(modules) {
		return modules
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Install beside, then rename into place, so a run that stops half
	// way leaves nothing that looks installed.
	tmp, err := os.MkdirTemp(root, ".install-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", tmp}, npmPackages...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if !installed(filepath.Join(tmp, "node_modules")) {
		t.Fatalf("npm install into %s did not install %s", tmp, npmPackages[0])
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(modules) {
		t.Fatalf("install npm packages: %v", err)
	}
	return modules
}

// installed reports whether modules holds the pinned web-bot-auth.
func installed(modules string) bool {
	name, version, _ := strings.Cut(npmPackages[0], "@")
	b, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
	if err != nil {
		return false
	}
	var p struct {
		Version string `json:"version"`
	}
	return json.Unmarshal(b, &p) == nil && p.Version == version
}
