package manager

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/testkit/testbin"
)

// TestNewFails makes each step of New fail in turn: New returns an error
// naming what failed and does not panic.
func TestNewFails(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyAddr := busy.Addr().String()
	_, busyPort, _ := net.SplitHostPort(busyAddr)
	garbage := func(name string) func(t *testing.T, dir string, o *Options) {
		return func(t *testing.T, dir string, o *Options) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("not a database ", 700)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string, o *Options)
		want  string
	}{
		{"key file is a directory", func(t *testing.T, dir string, o *Options) {
			if err := os.Mkdir(filepath.Join(dir, KeyFile), 0o700); err != nil {
				t.Fatal(err)
			}
		}, KeyFile},
		{"garbage key file", garbage(KeyFile), KeyFile},
		{"garbage channels.db", garbage(ChannelsFile), ChannelsFile},
		{"garbage storage index", garbage("storage.db"), "storage.db"},
		{"garbage bot key registry", garbage("botkeys.db"), "botkeys.db"},
		{"busy API port", func(t *testing.T, dir string, o *Options) { o.API = busyAddr }, busyAddr},
		{"busy libp2p port", func(t *testing.T, dir string, o *Options) {
			o.Listen = []string{"/ip4/127.0.0.1/tcp/" + busyPort}
		}, busyPort},
		{"busy key directory port", func(t *testing.T, dir string, o *Options) { o.Site.Directory = busyAddr }, busyAddr},
		{"bad store URL", func(t *testing.T, dir string, o *Options) { o.Storage.Store = "s3://Not_A_Bucket" }, "s3://Not_A_Bucket"},
		{"store without credentials", func(t *testing.T, dir string, o *Options) {
			o.Storage.Store, o.Storage.Getenv = "s3://crawl-warc", func(string) string { return "" }
		}, "AWS_ACCESS_KEY_ID"},
		{"unwritable directory", func(t *testing.T, dir string, o *Options) {
			// Tests run as root, which may write anywhere: a file where
			// the data directory should be cannot be written into.
			o.Dir = filepath.Join(dir, "file")
			if err := os.WriteFile(o.Dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts}}
			tt.setup(t, dir, &o)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			m, err := New(ctx, o)
			if err == nil {
				m.Close()
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
			t.Log(err)
		})
	}
}

// TestNewDamagedFiles damages each file of a manager that ran: New refuses
// to start, with one line naming the file, and leaves it in place.
func TestNewDamagedFiles(t *testing.T) {
	half := func(path string) error {
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		return os.Truncate(path, info.Size()/2)
	}
	empty := func(path string) error { return os.Truncate(path, 0) }
	// Garbage in the middle: for a bbolt file over every page past the two
	// meta pages (bbolt writes pages anew on each change, so the live ones
	// can be anywhere); for the key file over its second half.
	garbage := func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		from, to := len(b)/2, len(b)
		if len(b) > 16<<10 {
			from = 8 << 10
		}
		for i := from; i < to; i++ {
			b[i] ^= 0x5a
		}
		return os.WriteFile(path, b, 0o600)
	}
	directory := func(path string) error {
		if err := os.Remove(path); err != nil {
			return err
		}
		return os.MkdirAll(filepath.Join(path, "x"), 0o700)
	}
	type damage struct {
		file   string
		how    string
		damage func(string) error
	}
	var damages []damage
	for _, file := range []string{ChannelsFile, "storage.db", "botkeys.db", KeyFile} {
		for _, d := range []struct {
			how    string
			damage func(string) error
		}{{"truncated", half}, {"garbage", garbage}, {"zero length", empty}, {"a directory", directory}} {
			if file == KeyFile && d.how == "truncated" {
				continue // a key file cut in half is "zero length" or "garbage" already
			}
			damages = append(damages, damage{file, d.how, d.damage})
		}
	}
	for _, file := range []string{ChannelsFile, "storage.db", "botkeys.db", KeyFile} {
		t.Run(file+"/unreadable", func(t *testing.T) { unreadableManagerFile(t, file) })
	}
	for _, tt := range damages {
		t.Run(tt.file+"/"+tt.how, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts}}
			m, err := New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			m.Close()
			path := filepath.Join(dir, tt.file)
			if err := tt.damage(path); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tt.file, ".db") && boltfile.Check(path) == nil {
				t.Logf("%s: the damage hit no page in use; the file is as good as it was", tt.file)
				return
			}
			m, err = New(context.Background(), o)
			if err == nil {
				m.Close()
				t.Fatal("New started over a damaged file")
			}
			if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line naming %s", err, path)
			}
			if _, serr := os.Stat(path); serr != nil {
				t.Errorf("damaged file gone: %v", serr)
			}
			t.Log(err)
		})
	}
}

// permDir, set in a child's environment, names the directory whose
// manager TestPermissionChild starts.
const permDir = "HIVECRAWL_TEST_PERMISSION_DIR"

// unreadableManagerFile starts a manager, as a user other than root (root
// reads any file), over a directory whose file has mode 0000: it fails
// with one line naming the file, and does not panic.
func unreadableManagerFile(t *testing.T, file string) {
	dir, err := os.MkdirTemp("", "hivecrawl-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	m, err := New(context.Background(), Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts}})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPermissionChild$", "-test.v")
	cmd.Env = append(os.Environ(), permDir+"="+dir)
	testbin.AsUser(t, cmd, dir)
	path := filepath.Join(dir, file)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	text := string(out)
	switch {
	case strings.Contains(text, "panic:"):
		t.Fatalf("the manager panicked over an unreadable %s:\n%s", file, text)
	case strings.Contains(text, "STARTED"):
		t.Fatalf("the manager started over an unreadable %s:\n%s", file, text)
	case !strings.Contains(text, "FAILED"):
		t.Fatalf("child did not run:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "FAILED") {
			if !strings.Contains(l, path) {
				t.Errorf("error %q does not name %s", l, path)
			}
			t.Log(l)
		}
	}
}

// TestPermissionChild is the child of unreadableManagerFile.
func TestPermissionChild(t *testing.T) {
	dir := os.Getenv(permDir)
	if dir == "" {
		t.Skip("runs only as the child of TestNewDamagedFiles")
	}
	m, err := New(context.Background(), Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts}})
	if err != nil {
		fmt.Println("FAILED", err)
		return
	}
	m.Close()
	fmt.Println("STARTED")
}
