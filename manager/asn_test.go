package manager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckersOfAnotherAS: with the operator's AS table, a cheater's
// second identity on another /24 of its own autonomous system is never
// chosen to check its result; a volunteer of another AS is. Without the
// table the two /24s do not link them.
func TestCheckersOfAnotherAS(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	table := filepath.Join(t.TempDir(), "asn.txt")
	if err := os.WriteFile(table, []byte("127.0.0.0/16 64500\n127.1.0.0/16 64501\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, withTable := range []bool{false, true} {
		clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
		m := newManagerWith(t, t.TempDir(), clk, func(o *Options) {
			if withTable {
				o.Checks.ASN = table
			}
		})
		// The sybil on another /24 of the cheater's AS.
		hs := stripedHosts(ctx, t, m, "127.0.1.1", "127.0.2.1", "127.1.0.1")
		cheater, sybil, honest := hs[0], hs[1], hs[2]
		_, linked := m.nets.Linked(sybil.ID().String(), []string{cheater.ID().String()})
		if linked != withTable {
			t.Fatalf("with the table %v: sybil linked to the cheater %v", withTable, linked)
		}
		if _, linked := m.nets.Linked(honest.ID().String(), []string{cheater.ID().String()}); linked {
			t.Fatalf("with the table %v: a volunteer of another AS linked to the cheater", withTable)
		}
	}
	if _, err := New(context.Background(), Options{Dir: t.TempDir(), Logger: quiet, Checks: CheckOptions{ASN: filepath.Join(t.TempDir(), "missing")}}); err == nil || !strings.Contains(err.Error(), "AS table") {
		t.Fatalf("a manager with a missing AS table: %v", err)
	}
}
