package site

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenKeptKeepsItsAddress: a first start listens on the first listen
// address's IP and keeps the address; a restart listens there again; a
// kept file that holds no address is named in the error; an address the
// operator names is used and not kept.
func TestOpenKeptKeepsItsAddress(t *testing.T) {
	dir := t.TempDir()
	k := Kept{File: filepath.Join(dir, "site-address"), Listen: []string{"/ip4/127.0.0.1/tcp/0"}}
	h := http.NotFoundHandler()
	first, err := OpenKept("site server", k, h)
	if err != nil {
		t.Fatal(err)
	}
	addr := first.Addr().String()
	first.Close()
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("first start listens on %s, want the listen address's IP", addr)
	}
	again, err := OpenKept("site server", k, h)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Addr().String(); got != addr {
		t.Errorf("after a restart the server listens on %s, was %s", got, addr)
	}
	again.Close()

	if err := os.WriteFile(k.File, []byte("not an address\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenKept("site server", k, h); err == nil || !strings.Contains(err.Error(), k.File) {
		t.Errorf("a damaged kept file: %v, want an error naming it", err)
	}

	named := Kept{Addr: "127.0.0.1:0", File: filepath.Join(dir, "other"), Listen: k.Listen}
	srv, err := OpenKept("site server", named, h)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := os.Stat(named.File); !os.IsNotExist(err) {
		t.Errorf("a named address was kept (%v)", err)
	}
}
