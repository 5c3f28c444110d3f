//go:build !linux

package pgtest

import (
	"errors"
	"time"
)

// CPU is read from /proc on Linux only.
func (s *Server) CPU() (time.Duration, error) {
	return 0, errors.New("PostgreSQL server's CPU time: measured on Linux only")
}
