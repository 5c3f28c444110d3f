package profile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

func newProfile(t testing.TB) (*Profile, crypto.PrivKey) {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := peer.IDFromPrivateKey(k)
	p, err := New("test", k.GetPublic(), []string{"/ip4/127.0.0.1/tcp/4901/p2p/" + id.String()})
	if err != nil {
		t.Fatal(err)
	}
	return p, k
}

func TestRoundTrip(t *testing.T) {
	p, k := newProfile(t)
	path := filepath.Join(t.TempDir(), "sub", FileName)
	if err := Write(path, p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if fi.Mode().Perm() != 0o644 {
		t.Errorf("profile mode %v, want 0644 (it holds no secret)", fi.Mode().Perm())
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	key, err := got.Key()
	if err != nil || !key.Equals(k.GetPublic()) || got.Bootstrap[0] != p.Bootstrap[0] {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

func TestBoundsRoundTrip(t *testing.T) {
	p, _ := newProfile(t)
	p.Bounds = &coord.Bounds{Lo: []float64{-120, -100, -80}, Hi: []float64{120, 100, 80}}
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds == nil || got.Bounds.Lo[1] != -100 || got.Bounds.Hi[2] != 80 {
		t.Fatalf("bounds read back as %+v", got.Bounds)
	}
}

func TestMinClientVersionRoundTrip(t *testing.T) {
	p, _ := newProfile(t)
	p.MinClientVersion = "0.3.0"
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || got.MinClientVersion != "0.3.0" {
		t.Fatalf("minimum client version read back as %q, %v", got.MinClientVersion, err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	p, _ := newProfile(t)
	other, _ := newProfile(t)
	enc := func(mod func(*Profile)) string {
		q := *p
		q.Bootstrap = append([]string(nil), p.Bootstrap...)
		mod(&q)
		b, _ := q.Encode()
		return string(b)
	}
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"unknown field", strings.Replace(enc(func(*Profile) {}), `"version"`, `"evil": 1, "version"`, 1)},
		{"wrong version", enc(func(q *Profile) { q.Version = 2 })},
		{"key of another manager", enc(func(q *Profile) { q.ManagerKey = other.ManagerKey })},
		{"bad key", enc(func(q *Profile) { q.ManagerKey = "!!" })},
		{"bounds of two dimensions", enc(func(q *Profile) { q.Bounds = &coord.Bounds{Lo: []float64{0, 0}, Hi: []float64{1, 1}} })},
		{"empty bounds interval", enc(func(q *Profile) {
			q.Bounds = &coord.Bounds{Lo: []float64{0, 5, 0}, Hi: []float64{1, 5, 1}}
		})},
		{"no bootstrap", enc(func(q *Profile) { q.Bootstrap = nil })},
		{"bootstrap without peer", enc(func(q *Profile) { q.Bootstrap = []string{"/ip4/1.2.3.4/tcp/1"} })},
		{"bootstrap not a multiaddr", enc(func(q *Profile) { q.Bootstrap = []string{"http://x/"} })},
		{"trailing", enc(func(*Profile) {}) + "{}"},
		{"minimum client version not a version", enc(func(q *Profile) { q.MinClientVersion = "1.2" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode([]byte(tt.in)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %v, want ErrInvalid", err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	p, _ := newProfile(f)
	b, _ := p.Encode()
	f.Add(b)
	f.Add([]byte(`{"version":1,"manager":"x","manager_key":"","bootstrap":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			if strings.Contains(err.Error(), "json:") {
				t.Fatalf("Decode(%q) = %v: the decoder's words", b, err)
			}
			return
		}
		if _, err := p.Key(); err != nil {
			t.Fatalf("decoded profile has no key: %v", err)
		}
		enc, _ := p.Encode()
		if _, err := Decode(enc); err != nil {
			t.Fatalf("re-encoded profile refused: %v", err)
		}
	})
}

// TestDecodeSaysWhatIsWrong checks that a file that is not a profile is
// described in words, not in the JSON decoder's.
func TestDecodeSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "\n", "invalid network profile: the file is empty"},
		{"not JSON", "manager: QmX\n", "invalid network profile: it is not JSON (line 1, column 1)"},
		{"HTML", "<!doctype html>\n<p>profile</p>", "invalid network profile: it is not JSON (line 1, column 1)"},
		{"cut short", `{"version": 1, "manager": "Qm`, "invalid network profile: the file is cut short"},
		{"syntax on line 2", "{\"version\": 1,\n \"manager\" \"Qm\"}", "invalid network profile: it is not JSON (line 2, column 12)"},
		{"wrong kind", "{\n  \"bootstrap\": \"/ip4/1.2.3.4/tcp/1\"\n}", `invalid network profile: "bootstrap" is string where a profile has a list (line 2, column 36)`},
		{"a list", `[1, 2]`, "invalid network profile: it is array where a profile is a JSON object"},
		{"unknown field", `{"version": 1, "colour": "blue"}`, `invalid network profile: it has an unknown field "colour" (is it a network profile, and of this version of Hivecrawl?)`},
		{"two objects", "{\"version\": 1}\n{}", "invalid network profile: there is more after the profile's closing brace (line 2, column 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %v, want ErrInvalid", err)
			}
			if err.Error() != tc.want {
				t.Fatalf("Decode = %q\nwant       %q", err, tc.want)
			}
		})
	}
}
