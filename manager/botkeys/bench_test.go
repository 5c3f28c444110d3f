package botkeys

import (
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// BenchmarkPostgres times the reads the registry makes of a shared
// database: the whole directory (the read DirectoryRefresh spaces out),
// and a lease request's check of one peer.
func BenchmarkPostgres(b *testing.B) {
	dsn := pgtest.Start(b).DSN
	db, err := kv.OpenPostgres(b.Context(), dsn, PostgresTable, Buckets...)
	if err != nil {
		b.Fatal(err)
	}
	r := New(db, time.Now)
	defer r.Close()
	have := 0
	for _, n := range []int{100, 10000} {
		for ; have < n; have++ {
			pub, _ := newKey(b)
			if _, err := r.Certify(fmt.Sprintf("peer%d", have), pub, t0); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("directory/keys=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := r.readDirectory(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("PeerWithdrawn/keys=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := r.PeerWithdrawn("peer7"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
