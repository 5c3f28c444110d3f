package profile

import (
	"errors"
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
