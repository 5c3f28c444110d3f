package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// Lifetimes of sign-in codes and page sessions.
const (
	CodeTTL    = 2 * time.Minute
	SessionTTL = 30 * 24 * time.Hour
)

// sessions holds one-time sign-in codes and the page sessions they became.
// With a file, sessions outlive restarts: the dashboard's address stays
// the same, so a signed-in browser stays signed in. The file keeps each
// session ID's SHA-256, never the ID the cookie carries.
type sessions struct {
	path string // "" = in memory only
	log  *slog.Logger

	mu    sync.Mutex           // guards codes and live
	codes map[string]time.Time // one-time code → expiry
	live  map[string]time.Time // SHA-256 of a session ID (hex) → expiry
}

// sessionFile is the file's form.
type sessionFile struct {
	Sessions map[string]time.Time `json:"sessions"`
}

// newSessions returns the sessions kept in path ("" = none). A file that
// cannot be read gets one log line; the page then asks to sign in again.
func newSessions(path string, log *slog.Logger) *sessions {
	s := &sessions{path: path, log: log, codes: make(map[string]time.Time), live: make(map[string]time.Time)}
	if path == "" {
		return s
	}
	if err := s.load(); err != nil {
		log.Warn("Dashboard sign-ins not restored; sign in again from the tray or with 'hivecrawl open'", "file", path, "err", err)
	}
	return s
}

func (s *sessions) load() error {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var f sessionFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("damaged: %w", err)
	}
	for k, exp := range f.Sessions {
		if raw, err := hex.DecodeString(k); err == nil && len(raw) == sha256.Size {
			s.live[k] = exp
		}
	}
	return nil
}

// saveLocked writes the live sessions to the file; s.mu must be held. A
// failed write costs a sign-in after the next restart, nothing more.
func (s *sessions) saveLocked() {
	if s.path == "" {
		return
	}
	b, err := json.Marshal(sessionFile{Sessions: s.live})
	if err == nil {
		err = atomicfile.WriteFile(s.path, b, 0o600)
	}
	if err != nil {
		s.log.Warn("Dashboard sign-ins not saved; the next start will ask to sign in again", "file", s.path, "err", err)
	}
}

// hashID is the key a session ID is kept under.
func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func randomID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// code issues a one-time sign-in code valid until now+CodeTTL.
func (s *sessions) code(now time.Time) string {
	c := randomID()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(now)
	s.codes[c] = now.Add(CodeTTL)
	return c
}

// redeem spends code and returns a new session ID, or ok false when the
// code is unknown, used or expired.
func (s *sessions) redeem(code string, now time.Time) (id string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(now)
	exp, ok := s.codes[code]
	if !ok || code == "" {
		return "", false
	}
	delete(s.codes, code)
	if !now.Before(exp) {
		return "", false
	}
	id = randomID()
	s.live[hashID(id)] = now.Add(SessionTTL)
	s.saveLocked()
	return id, true
}

// valid reports whether id is a live session.
func (s *sessions) valid(id string, now time.Time) bool {
	if id == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.live[hashID(id)]
	return ok && now.Before(exp)
}

// end forgets the session id.
func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, hashID(id))
	s.saveLocked()
}

func (s *sessions) expireLocked(now time.Time) {
	for c, exp := range s.codes {
		if !now.Before(exp) {
			delete(s.codes, c)
		}
	}
	for id, exp := range s.live {
		if !now.Before(exp) {
			delete(s.live, id)
		}
	}
}
