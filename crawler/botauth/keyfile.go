package botauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"io/fs"
	"os"
)

// KeyFileName is the key file's name in the client's data directory.
const KeyFileName = "botauth.key"

// maxKeyFileSize bounds what LoadOrCreateKey reads: a PEM Ed25519 key is
// about 120 bytes.
const maxKeyFileSize = 4 << 10

// pemType is the PEM block type of a PKCS #8 private key.
const pemType = "PRIVATE KEY"

// LoadOrCreateKey returns the Ed25519 private key in the PEM (PKCS #8) file
// at path, or, when there is no file, generates one and writes it with mode
// 0600 (by rename, so a crash leaves either no file or a whole one). A new
// key must be certified by the operator before sites can verify it.
func LoadOrCreateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		k, err := parseKey(b)
		if err != nil {
			return nil, fmt.Errorf("read web bot key %s: %w (delete the file to make a new key, which the operator must certify again)", path, err)
		}
		return k, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read web bot key %s: %w", path, err)
	}
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate web bot key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("encode web bot key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der})
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("save web bot key %s: %w", path, err)
	}
	return k, nil
}

// parseKey decodes a PEM PKCS #8 Ed25519 private key.
func parseKey(b []byte) (ed25519.PrivateKey, error) {
	if len(b) > maxKeyFileSize {
		return nil, fmt.Errorf("%d bytes is too large for a key", len(b))
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != pemType {
		return nil, errors.New("not a PEM private key")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an Ed25519 key", k)
	}
	return ek, nil
}
