package botauth

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
)

// rfc8037X is RFC 8037 Appendix A.2's public key.
const rfc8037X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"

func TestDirectoryRoundTrip(t *testing.T) {
	pub1, _, _ := ed25519.GenerateKey(nil)
	pub2, _, _ := ed25519.GenerateKey(nil)
	d := Directory{Keys: []JWK{NewJWK(pub1), NewJWK(pub2)}}
	b, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseDirectory(b)
	if err != nil {
		t.Fatalf("ParseDirectory(%s): %v", b, err)
	}
	if len(got.Keys) != 2 || got.Keys[0] != d.Keys[0] || got.Keys[1] != d.Keys[1] {
		t.Fatalf("round trip = %+v, want %+v", got, d)
	}
	for _, pub := range []ed25519.PublicKey{pub1, pub2} {
		k, ok := got.Lookup(Thumbprint(pub))
		if !ok || !k.Equal(pub) {
			t.Errorf("Lookup(%s) = %x, %v; want %x", Thumbprint(pub), k, ok, pub)
		}
	}
	if _, ok := got.Lookup("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"); ok {
		t.Error("Lookup found a key that is not in the directory")
	}

	empty, err := Directory{}.Marshal()
	if err != nil || string(empty) != `{"keys":[]}` {
		t.Errorf("empty directory = %s, %v; want {\"keys\":[]}", empty, err)
	}
}

func TestParseDirectory(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		keys  int  // keys kept, when ok
		ok    bool // parses
		bad   bool // error wraps ErrBadDirectory
		first string
	}{
		{name: "one key", in: `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `"}]}`, keys: 1, ok: true, first: rfc8037X},
		{name: "extra members", in: `{"purpose":"rag","keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","nbf":1,"x":"` + rfc8037X + `"}]}`, keys: 1, ok: true, first: rfc8037X},
		{name: "empty", in: `{"keys":[]}`, ok: true},
		{name: "other key types skipped", in: `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"},{"kty":"OKP","crv":"X25519","x":"abc"},{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `"}]}`, keys: 1, ok: true, first: rfc8037X},
		{name: "duplicate kept once", in: `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `"},{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `"}]}`, keys: 1, ok: true, first: rfc8037X},
		{name: "no keys member", in: `{"jwks":[]}`, bad: true},
		{name: "keys null", in: `{"keys":null}`, bad: true},
		{name: "null", in: `null`, bad: true},
		{name: "array", in: `[]`, bad: true},
		{name: "not JSON", in: `keys`, bad: true},
		{name: "empty input", in: ``, bad: true},
		{name: "trailing data", in: `{"keys":[]} {}`, bad: true},
		{name: "key not an object", in: `{"keys":[1]}`, bad: true},
		{name: "short x", in: `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]}`, bad: true},
		{name: "padded x", in: `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `="}]}`, bad: true},
		{name: "std base64 x", in: `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + strings.ReplaceAll(rfc8037X, "_", "/") + `"}]}`, bad: true},
		{name: "too large", in: `{"keys":[]}` + strings.Repeat(" ", MaxDirectoryBytes), bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDirectory([]byte(c.in))
			if c.ok {
				if err != nil {
					t.Fatalf("ParseDirectory: %v", err)
				}
				if len(d.Keys) != c.keys {
					t.Fatalf("%d keys, want %d", len(d.Keys), c.keys)
				}
				if c.first != "" && d.Keys[0].X != c.first {
					t.Errorf("first key x = %s, want %s", d.Keys[0].X, c.first)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseDirectory accepted %.80q", c.in)
			}
			if c.bad && !errors.Is(err, ErrBadDirectory) {
				t.Errorf("error %v does not wrap ErrBadDirectory", err)
			}
		})
	}
}

func FuzzParseDirectory(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + rfc8037X + `"}]}`))
	f.Add([]byte(`{"keys":[]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDirectory(data)
		if err != nil {
			if !errors.Is(err, ErrBadDirectory) {
				t.Fatalf("error %v does not wrap ErrBadDirectory", err)
			}
			return
		}
		// Every key kept is a valid Ed25519 key that Lookup finds.
		for _, k := range d.Keys {
			pub, err := k.PublicKey()
			if err != nil {
				t.Fatalf("kept an invalid key %+v: %v", k, err)
			}
			if got, ok := d.Lookup(Thumbprint(pub)); !ok || !got.Equal(pub) {
				t.Fatalf("Lookup misses kept key %+v", k)
			}
		}
		// What we serve, we parse back to the same directory.
		b, err := d.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		d2, err := ParseDirectory(b)
		if err != nil {
			t.Fatalf("reparse %s: %v", b, err)
		}
		b2, _ := d2.Marshal()
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the directory: %s then %s", b, b2)
		}
	})
}
