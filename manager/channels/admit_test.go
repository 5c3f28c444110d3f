package channels

import (
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

func TestCheckSeed(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		allow netguard.Allow
		id    string // "" wants a refusal
		says  string // in the refusal
	}{
		{"public name", "https://Example.org/a#b", 0, "example.org", ""},
		{"public address", "http://93.184.216.34:8080/", 0, "93.184.216.34:8080", ""},
		{"scheme", "ftp://example.org/", 0, "", "scheme must be http or https"},
		{"no host", "http:///x", 0, "", "needs a host"},
		{"loopback", "http://127.0.0.1:8080/", 0, "", "127.0.0.1 is not a public address; Hivecrawl crawls only public web sites"},
		{"loopback v6", "http://[::1]/", 0, "", "::1 is not a public address"},
		{"private", "http://10.1.2.3/", 0, "", "10.1.2.3 is not a public address"},
		{"link-local", "http://169.254.169.254/latest/", 0, "", "169.254.169.254 is not a public address"},
		{"v4-mapped loopback", "http://[::ffff:127.0.0.1]/", 0, "", "is not a public address"},
		{"localhost", "http://localhost:3000/", 0, "", "localhost names this machine"},
		{"a name under localhost", "http://app.localhost/", 0, "", "app.localhost names this machine"},
		{"a host two passes make an address", "http://0../", 0, "", "0.0.0.0 is not a public address"},
		{"test net refused", "http://192.0.2.7/", 0, "", "192.0.2.7 is not a public address"},
		{"loopback allowed", "http://127.0.0.1:8080/", netguard.AllowLoopback, "127.0.0.1:8080", ""},
		{"localhost allowed", "http://localhost:3000/", netguard.AllowLoopback, "localhost:3000", ""},
		{"test net allowed", "http://192.0.2.7/", netguard.AllowTestNets, "192.0.2.7", ""},
		{"private stays refused", "http://10.1.2.3/", netguard.AllowLoopback | netguard.AllowTestNets, "", "not a public address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, id, err := CheckSeed(tt.raw, tt.allow)
			if tt.id != "" {
				if err != nil || id != tt.id {
					t.Fatalf("CheckSeed(%q) = %q, %v; want %q", tt.raw, id, err, tt.id)
				}
				return
			}
			if !errors.Is(err, ErrBadSeed) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), tt.raw) {
				t.Fatalf("CheckSeed(%q) = %v; want ErrBadSeed naming the URL and saying %q", tt.raw, err, tt.says)
			}
		})
	}
}

// TestCheckSeedsAllOrNone: one refused URL refuses the batch, and the
// error names every URL refused.
func TestCheckSeedsAllOrNone(t *testing.T) {
	_, err := CheckSeeds([]string{"http://a.example/", "http://10.0.0.1/", "gopher://b.example/"}, 0)
	if !errors.Is(err, ErrBadSeed) || !strings.HasPrefix(err.Error(), "nothing added: ") ||
		!strings.Contains(err.Error(), "http://10.0.0.1/") || !strings.Contains(err.Error(), "gopher://b.example/") || strings.Contains(err.Error(), "a.example") {
		t.Fatalf("CheckSeeds = %v", err)
	}
	if _, err := CheckSeeds(nil, 0); !errors.Is(err, ErrBadSeed) {
		t.Fatalf("CheckSeeds of nothing = %v, want ErrBadSeed", err)
	}
	seeds, err := CheckSeeds([]string{"HTTP://A.example"}, 0)
	if err != nil || !slices.Equal(seeds, []string{"http://a.example/"}) {
		t.Fatalf("CheckSeeds = %q, %v", seeds, err)
	}
}

// TestAddKnown: Add says which seeds were known, a seed given twice is
// known the second time, and a removed channel's seed brings it back.
func TestAddKnown(t *testing.T) {
	d := openDB(t, "", Options{})
	a, err := d.Add([]string{"http://a.example/", "http://a.example/x", "http://a.example/"}, t0)
	if err != nil || len(a.Created) != 1 || !slices.Equal(a.Known, []string{"http://a.example/"}) {
		t.Fatalf("Add = %+v, %v", a, err)
	}
	a, err = d.Add([]string{"http://a.example/x", "http://b.example/"}, t0)
	if err != nil || len(a.Created) != 1 || a.Created[0].ID != "b.example" || !slices.Equal(a.Known, []string{"http://a.example/x"}) {
		t.Fatalf("Add again = %+v, %v", a, err)
	}
	if _, err := d.Remove("b.example", t0); err != nil {
		t.Fatal(err)
	}
	a, err = d.Add([]string{"http://b.example/"}, t0)
	if err != nil || len(a.Known) != 0 {
		t.Fatalf("Add of a removed channel's seed = %+v, %v; want it back, not known", a, err)
	}
	if c, err := d.Get("b.example"); err != nil || c.Removed() {
		t.Fatalf("b.example after its seed came again: %+v, %v", c, err)
	}
}

// FuzzCheckSeed: a seed CheckSeed passes re-parses to itself, and its host
// is never a literal address the crawler refuses.
func FuzzCheckSeed(f *testing.F) {
	for _, s := range []string{"http://a.example/", "http://127.0.0.1:8080/", "http://[::ffff:10.0.0.1]/", "http://LOCALHOST./", "https://0x7f.1/", "http://[fe80::1%25eth0]/"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, raw string, allow uint8) {
		a := netguard.Allow(allow) & (netguard.AllowLoopback | netguard.AllowTestNets)
		seed, id, err := CheckSeed(raw, a)
		if err != nil {
			if !errors.Is(err, ErrBadSeed) {
				t.Fatalf("CheckSeed(%q) = %v, not ErrBadSeed", raw, err)
			}
			return
		}
		again, id2, err := ParseSeed(seed)
		if err != nil || again != seed || id2 != id {
			t.Fatalf("seed %q does not re-parse to itself: %q, %q, %v", seed, again, id2, err)
		}
		u, _ := url.Parse(seed)
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil && netguard.Check(ip, a) != nil {
			t.Fatalf("CheckSeed(%q) passed a refused address %s", raw, ip)
		}
	})
}
