package loopback

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzHostAllowed(f *testing.F) {
	for _, h := range []string{"127.0.0.1:8080", "localhost", "[::1]:8080", "evil.example:8080", "127.0.0.1.evil:8080", "[::1]", "LOCALHOST:8080"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !HostAllowed(host, "8080") {
			return
		}
		name := host
		if h, _, err := net.SplitHostPort(host); err == nil {
			name = h
		}
		name = strings.ToLower(strings.Trim(name, "[]"))
		if name != "localhost" && name != "127.0.0.1" && name != "::1" {
			t.Fatalf("accepted foreign host %q", host)
		}
	})
}

// TestHostAllowed: loopback names with no port or the server's port pass;
// other names and ports do not.
func TestHostAllowed(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost": true, "[::1]:8080": true, "[::1]": true, "LOCALHOST:8080": true,
		"127.0.0.1:9090": false, "evil.example:8080": false, "127.0.0.1.evil:8080": false, "": false,
	} {
		if got := HostAllowed(host, "8080"); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestInfoRoundTrip: the info file written is read back, with this
// process's ID; a missing one is ErrNotRunning, a damaged one an error
// that says so.
func TestInfoRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.json")
	if _, err := ReadInfo(path); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("missing file: %v, want ErrNotRunning", err)
	}
	if err := WriteInfo(path, Info{URL: "http://127.0.0.1:1", Token: "t"}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadInfo(path)
	if err != nil || got.URL != "http://127.0.0.1:1" || got.Token != "t" || got.PID != os.Getpid() {
		t.Fatalf("read back %+v, %v", got, err)
	}
	RemoveInfo(path, "http://127.0.0.1:2") // another instance's: kept
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("another URL's removal took the file: %v", err)
	}
	RemoveInfo(path, got.URL)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file left after its own removal: %v", err)
	}
	os.WriteFile(path, []byte("{"), 0o600)
	if _, err := ReadInfo(path); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged file: %v", err)
	}
}
