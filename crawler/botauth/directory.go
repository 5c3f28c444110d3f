package botauth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// The key directory's well-known location and media type
// (draft-meunier-http-message-signatures-directory).
const (
	// DirectoryPath is where an operator serves its key directory.
	DirectoryPath = "/.well-known/http-message-signatures-directory"
	// DirectoryContentType is the key directory's media type.
	DirectoryContentType = "application/http-message-signatures-directory+json"
	// MaxDirectoryBytes bounds a directory ParseDirectory accepts: some
	// 50 000 keys, far more than one operator certifies.
	MaxDirectoryBytes = 4 << 20
)

// JWK key type and curve of an Ed25519 key (RFC 8037).
const (
	KeyTypeOKP   = "OKP"
	CurveEd25519 = "Ed25519"
)

// JWK is one Ed25519 public key as a JSON Web Key (RFC 8037): kty "OKP",
// crv "Ed25519", x the raw 32-byte key, base64url without padding.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
}

// NewJWK returns pub as a JWK.
func NewJWK(pub ed25519.PublicKey) JWK {
	return JWK{Kty: KeyTypeOKP, Crv: CurveEd25519, X: base64.RawURLEncoding.EncodeToString(pub)}
}

// PublicKey returns the key k holds, or an error when k is not a valid
// Ed25519 JWK.
func (k JWK) PublicKey() (ed25519.PublicKey, error) {
	if k.Kty != KeyTypeOKP || k.Crv != CurveEd25519 {
		return nil, fmt.Errorf("%w: key type %q curve %q, want OKP Ed25519", ErrBadDirectory, k.Kty, k.Crv)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(k.X)
	if err != nil {
		return nil, fmt.Errorf("%w: key x is not base64url: %v", ErrBadDirectory, err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: key x has %d bytes, want %d", ErrBadDirectory, len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// Directory is a key directory: the JWKS an operator serves at
// DirectoryPath, listing the keys whose signatures it vouches for.
type Directory struct {
	Keys []JWK `json:"keys"`
}

// Marshal returns d as JSON, keys in d's order ("keys":[] when empty).
func (d Directory) Marshal() ([]byte, error) {
	if d.Keys == nil {
		d.Keys = []JWK{}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode key directory: %w", err)
	}
	return b, nil
}

// Lookup returns the directory's key whose thumbprint is keyid.
func (d Directory) Lookup(keyid string) (ed25519.PublicKey, bool) {
	for _, k := range d.Keys {
		pub, err := k.PublicKey()
		if err != nil {
			continue
		}
		if Thumbprint(pub) == keyid {
			return pub, true
		}
	}
	return nil, false
}

// ParseDirectory parses a key directory fetched from an operator: outside
// input. It must be a JSON object with a "keys" array (empty is fine: every
// key withdrawn) of at most MaxDirectoryBytes. Keys of other types or
// curves (a JWKS may hold RSA keys) are skipped; an OKP Ed25519 key whose x
// is not a 32-byte base64url value is an error, as is anything else
// malformed. Repeated keys are kept once. Errors wrap ErrBadDirectory.
func ParseDirectory(data []byte) (Directory, error) {
	if len(data) > MaxDirectoryBytes {
		return Directory{}, fmt.Errorf("%w: %d bytes, more than %d", ErrBadDirectory, len(data), MaxDirectoryBytes)
	}
	var raw struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return Directory{}, fmt.Errorf("%w: %v", ErrBadDirectory, err)
	}
	if dec.More() {
		return Directory{}, fmt.Errorf("%w: data after the JSON object", ErrBadDirectory)
	}
	if raw.Keys == nil {
		return Directory{}, fmt.Errorf("%w: no keys array", ErrBadDirectory)
	}
	d := Directory{Keys: []JWK{}}
	seen := make(map[string]bool)
	for i, m := range *raw.Keys {
		var k JWK
		if err := json.Unmarshal(m, &k); err != nil {
			return Directory{}, fmt.Errorf("%w: key %d: %v", ErrBadDirectory, i, err)
		}
		if k.Kty != KeyTypeOKP || k.Crv != CurveEd25519 {
			continue
		}
		if _, err := k.PublicKey(); err != nil {
			return Directory{}, fmt.Errorf("key %d: %w", i, err)
		}
		if seen[k.X] {
			continue
		}
		seen[k.X] = true
		d.Keys = append(d.Keys, k)
	}
	return d, nil
}
