// Package webbotauth runs independent npm implementations of RFC 9421 and
// Web Bot Auth on requests our crawlers signed, the way a web site would
// check them (verify.mjs): http-message-signatures, which covers the
// dictionary form of Signature-Agent, and the web-bot-auth package's own
// verifier, which covers only the legacy form. It is test
// infrastructure: the npm packages are installed on first use into the
// user's cache, outside the repository, and Node.js and npm must be
// installed (scripts/test.sh installs them).
package webbotauth

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// verifyScript verifies one recorded request: verify.mjs.
//
//go:embed verify.mjs
var verifyScript []byte

// The verifiers and the versions of their dependencies, pinned so the
// tests check the same code every time.
var npmPackages = []string{
	"web-bot-auth@0.1.3",
	"http-message-signatures@1.0.6",
	"http-message-sig@0.2.0",
	"jsonwebkey-thumbprint@0.1.0",
	"structured-headers@2.0.2",
}

// Request is a request as a site received it, and when: At, and in unix
// seconds for the verifier, Received.
type Request struct {
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Received int64             `json:"received,omitempty"`
	At       time.Time         `json:"-"`
}

// Record returns the request r as received now.
func Record(r *http.Request) Request {
	now := time.Now()
	rec := Request{URL: "http://" + r.Host + r.URL.RequestURI(), Headers: map[string]string{}, Received: now.Unix(), At: now}
	for name := range r.Header {
		rec.Headers[strings.ToLower(name)] = r.Header.Get(name)
	}
	return rec
}

// Recorder is an http.Handler wrapper that keeps the requests it sees.
type Recorder struct {
	Next http.Handler
	mu   sync.Mutex // guards got
	got  []Request
}

// ServeHTTP records r and passes it on.
func (rc *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Record(r)
	rc.mu.Lock()
	rc.got = append(rc.got, rec)
	rc.mu.Unlock()
	if rc.Next != nil {
		rc.Next.ServeHTTP(w, r)
	}
}

// Requests returns the requests recorded so far.
func (rc *Recorder) Requests() []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Request(nil), rc.got...)
}

// Verifier runs verify.mjs.
type Verifier struct {
	dir string // holds verify.mjs and node_modules
}

// New installs the npm packages when missing and returns a Verifier. It
// fails the test when Node.js or npm is missing.
func New(t testing.TB) *Verifier {
	t.Helper()
	modules := webBotAuthModules(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "verify.mjs"), verifyScript, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return &Verifier{dir: dir}
}

// Verify checks rec's signature as a site would, with the RFC 9421
// library http-message-signatures: the key directory is fetched from the
// origin its covered Signature-Agent names. ok is whether it verified;
// the verdict says with which keyid, or why not.
func (v *Verifier) Verify(t testing.TB, rec Request) (ok bool, out Verdict) {
	t.Helper()
	return v.run(t, "rfc9421", rec)
}

// VerifyAll checks every request of recs as Verify does, in one run of
// the verifier, judging each signature's times as at its Received.
func (v *Verifier) VerifyAll(t testing.TB, recs []Request) []Verdict {
	t.Helper()
	f, err := os.CreateTemp(v.dir, "requests-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if err := json.NewEncoder(f).Encode(recs); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "verify.mjs", "rfc9421", f.Name())
	cmd.Dir = v.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run verify.mjs: %v (%s)", err, stderr.String())
	}
	var verdicts []Verdict
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var vd Verdict
		if err := dec.Decode(&vd); err != nil {
			t.Fatalf("verify.mjs printed %q: %v (stderr: %s)", out, err, stderr.String())
		}
		verdicts = append(verdicts, vd)
	}
	if len(verdicts) != len(recs) {
		t.Fatalf("verify.mjs judged %d of %d requests (stderr: %s)", len(verdicts), len(recs), stderr.String())
	}
	return verdicts
}

// VerifyReference checks rec's signature with the web-bot-auth package's
// own verifier, which knows only the legacy Signature-Agent form.
func (v *Verifier) VerifyReference(t testing.TB, rec Request) (ok bool, out Verdict) {
	t.Helper()
	return v.run(t, "web-bot-auth", rec)
}

// run runs verify.mjs's verifier on rec.
func (v *Verifier) run(t testing.TB, verifier string, rec Request) (ok bool, out Verdict) {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(v.dir, "request-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return runVerifier(t, v.dir, verifier, f.Name())
}

// Verdict is verify.mjs's output.
type Verdict struct {
	OK    bool   `json:"ok"`
	KeyID string `json:"keyid"`
	Error string `json:"error"`
}

// runVerifier runs verify.mjs's verifier in dir (which holds it and
// node_modules) on a recorded request file.
func runVerifier(t testing.TB, dir, verifier, request string) (bool, Verdict) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "verify.mjs", verifier, request)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var v Verdict
	if jerr := json.Unmarshal(stdout, &v); jerr != nil {
		t.Fatalf("verify.mjs printed %q (exit: %v; stderr: %s)", stdout, err, stderr.String())
	}
	t.Logf("%s on %s: %+v", verifier, filepath.Base(request), v)
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
func webBotAuthModules(t testing.TB) string {
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
