package web

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// Lifetimes of sign-in codes and page sessions.
const (
	CodeTTL    = 2 * time.Minute
	SessionTTL = 30 * 24 * time.Hour
)

// sessions holds one-time sign-in codes and the page sessions they became.
type sessions struct {
	mu    sync.Mutex           // guards codes and live
	codes map[string]time.Time // one-time code → expiry
	live  map[string]time.Time // session ID → expiry
}

func newSessions() *sessions {
	return &sessions{codes: make(map[string]time.Time), live: make(map[string]time.Time)}
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
	s.live[id] = now.Add(SessionTTL)
	return id, true
}

// valid reports whether id is a live session.
func (s *sessions) valid(id string, now time.Time) bool {
	if id == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.live[id]
	return ok && now.Before(exp)
}

// end forgets the session id.
func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
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
