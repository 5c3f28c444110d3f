package app

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
)

// requestSigner returns the function that signs every request the crawler
// sends to a web site (Web Bot Auth, RFC 9421), and the public key the
// manager certifies in its key directory, when the network names one
// (profile.SignatureAgent). Without one (solo and local mode) requests go
// unsigned: a site could not verify them.
func (nw *network) requestSigner(dataDir string) (sign func(*http.Request) error, pub []byte, err error) {
	if nw == nil || nw.prof.SignatureAgent == "" {
		return nil, nil, nil
	}
	key, err := botauth.LoadOrCreateKey(filepath.Join(dataDir, botauth.KeyFileName))
	if err != nil {
		return nil, nil, fmt.Errorf("request-signing key: %w", err)
	}
	s, err := botauth.NewSigner(key, nw.prof.SignatureAgent, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("request signer: %w", err)
	}
	return s.Sign, key.Public().(ed25519.PublicKey), nil
}
