package buckettest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/hivecrawl/hivecrawl/manager/storage/bucket"
)

// Version is the versitygw release the tests run.
const Version = "v1.8.0"

// startTimeout bounds how long a started server may take to listen; a
// server that does not is a failure, not a wait.
const startTimeout = time.Minute

// Server is a running versitygw.
type Server struct {
	// Root is the posix backend's directory: bucket b's object k is the
	// file Root/b/k.
	Root string
	// AccessKey and SecretKey are the root account's credentials.
	AccessKey, SecretKey string

	t      testing.TB
	bin    string
	port   int
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
	out    *syncBuffer
}

// errNoProc: the port a process listens on cannot be found here.
var errNoProc = errors.New("finding the port versitygw listens on needs Linux's /proc")

// Start builds versitygw if needed and starts it over a new temporary
// directory; the test's cleanup stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	secret := make([]byte, 16)
	rand.Read(secret)
	s := &Server{Root: t.TempDir(), AccessKey: "hivecrawl-test", SecretKey: hex.EncodeToString(secret), t: t, bin: bin}
	s.start("127.0.0.1:0")
	t.Cleanup(s.Stop)
	return s
}

// Endpoint returns the server's URL, http://127.0.0.1:PORT.
func (s *Server) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(s.port) }

// Getenv answers for the AWS variables as an operator would set them for
// this server (for bucket.FromEnv); other names are "".
func (s *Server) Getenv(name string) string {
	switch name {
	case "AWS_ENDPOINT_URL_S3":
		return s.Endpoint()
	case "AWS_ACCESS_KEY_ID":
		return s.AccessKey
	case "AWS_SECRET_ACCESS_KEY":
		return s.SecretKey
	case "AWS_REGION":
		return "us-east-1"
	}
	return ""
}

// MakeBucket creates bucket name.
func (s *Server) MakeBucket(name string) {
	s.t.Helper()
	c, err := minio.New("127.0.0.1:"+strconv.Itoa(s.port), &minio.Options{
		Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), BucketLookup: minio.BucketLookupPath, Region: "us-east-1"})
	if err != nil {
		s.t.Fatal(err)
	}
	if err := c.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		s.t.Fatalf("make bucket %s: %v", name, err)
	}
}

// Open opens store URL store (s3://bucket/prefix) on the server, as
// the manager does with the variables of Getenv.
func (s *Server) Open(store string) *bucket.Bucket {
	s.t.Helper()
	cfg, err := bucket.FromEnv(store, s.Getenv)
	if err != nil {
		s.t.Fatal(err)
	}
	b, err := bucket.Open(context.Background(), cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// Stop stops the server; its files stay.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
	if s.t.Failed() {
		s.t.Logf("versitygw output:\n%s", s.out.String())
	}
}

// Restart starts the stopped server again on its port, over the same
// files.
func (s *Server) Restart() {
	s.t.Helper()
	s.start("127.0.0.1:" + strconv.Itoa(s.port))
}

func (s *Server) start(addr string) {
	s.t.Helper()
	s.out = &syncBuffer{}
	cmd := exec.Command(s.bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--port", addr,
		"--health", "/healthz", "--quiet", "posix", s.Root)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start versitygw: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) {
		cmd.Wait()
		close(exited)
	}(s.exited)
	deadline := time.Now().Add(startTimeout)
	for {
		port, err := listenPort(cmd.Process.Pid)
		if errors.Is(err, errNoProc) {
			s.Stop()
			s.t.Skip(err)
		}
		if err == nil && port != 0 && healthy(port) {
			s.port = port
			return
		}
		select {
		case <-s.exited:
			s.Stop()
			s.t.Fatalf("versitygw exited at start:\n%s", s.out.String())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("versitygw not listening after %v:\n%s", startTimeout, s.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// healthy reports whether the server on port answers its health check.
func healthy(port int) bool {
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Binary returns the path of the versitygw binary, building it on first
// use; it skips the test when it cannot be built, unless CI is set.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { buildPath, buildErr = build() })
	if buildErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("build versitygw: %v", buildErr)
		}
		t.Skipf("build versitygw (set CI to make this a failure): %v", buildErr)
	}
	return buildPath
}

// build installs versitygw into the user's cache directory, unless a
// build of Version is there already.
func build() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "hivecrawl-test", "versitygw-"+Version)
	bin := filepath.Join(dir, "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(goCmd, "install", "github.com/versity/versitygw/cmd/versitygw@"+Version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install versitygw@%s: %v\n%s", Version, err, out)
	}
	// Renamed into place whole, so that test processes building at once
	// never run a half-written binary.
	if err := os.Rename(filepath.Join(tmp, "versitygw"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
