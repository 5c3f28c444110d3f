package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// maxKeyFileSize bounds a key file; an Ed25519 key file is under 100 bytes.
const maxKeyFileSize = 16 << 10

// LoadOrCreateKey reads the private key stored at path, or generates an
// Ed25519 key and stores it there (file mode 0600, directory 0700) when the
// file does not exist. The write is atomic: a crash never leaves a truncated
// key behind.
func LoadOrCreateKey(path string) (crypto.PrivKey, error) {
	k, err := LoadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	k, _, err = crypto.GenerateEd25519Key(nil)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	raw, err := crypto.MarshalPrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	if err := atomicfile.WriteFile(path, raw, 0o600); err != nil {
		return nil, fmt.Errorf("save key %s: %w", path, err)
	}
	return k, nil
}

// LoadKey reads the private key stored at path, as LoadOrCreateKey does,
// without making one when there is none (an error wrapping
// fs.ErrNotExist).
func LoadKey(path string) (crypto.PrivKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read key %s: %w", path, err)
	}
	if len(b) > maxKeyFileSize {
		return nil, fmt.Errorf("read key %s: %d bytes is too large for a key", path, len(b))
	}
	k, err := crypto.UnmarshalPrivateKey(b)
	if err == nil {
		err = selfCheck(k)
	}
	if err != nil {
		return nil, fmt.Errorf("key %s is damaged: %w; restore it from a backup (deleting it makes a new identity, and what the old one signed no longer verifies)", path, err)
	}
	return k, nil
}

// selfCheck signs with k and verifies with its public key. A stored
// Ed25519 key holds its public half beside the seed, unchecked by
// UnmarshalPrivateKey: a changed byte in either gives a key that decodes
// but whose signatures nobody can verify.
func selfCheck(k crypto.PrivKey) error {
	msg := []byte("hivecrawl key self-check")
	sig, err := k.Sign(msg)
	if err != nil {
		return err
	}
	if ok, err := k.GetPublic().Verify(msg, sig); err != nil || !ok {
		return errors.New("its public half does not match its private half")
	}
	return nil
}
