package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
)

// Thumbprint returns the RFC 7638 JWK SHA-256 thumbprint of pub, base64url
// without padding: the keyid of its signatures and the name the key
// directory knows it by. The hashed JSON is the OKP key's required members
// in lexicographic order (RFC 8037 §2): {"crv":"Ed25519","kty":"OKP","x":…}.
// pub must be ed25519.PublicKeySize bytes long; the thumbprint of anything
// else matches no directory key.
func Thumbprint(pub ed25519.PublicKey) string {
	x := base64.RawURLEncoding.EncodeToString(pub)
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + x + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
