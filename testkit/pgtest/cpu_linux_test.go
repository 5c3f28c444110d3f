package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestCPU: a query that keeps the server busy for a while shows in its
// CPU time, and the count never goes back.
func TestCPU(t *testing.T) {
	s := Start(t)
	before, err := s.CPU()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT count(*) FROM generate_series(1, 3000000) a, generate_series(1, 3) b`); err != nil {
		t.Fatal(err)
	}
	after, err := s.CPU()
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 50*time.Millisecond {
		t.Errorf("server CPU went from %v to %v over a busy query", before, after)
	}
	t.Logf("server CPU %v → %v", before, after)
}
