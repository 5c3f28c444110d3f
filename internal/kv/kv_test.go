package kv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

var (
	bucketA = []byte("a")
	bucketB = []byte("b")
)

// stores runs test on a Bolt and on a Postgres store.
func stores(t *testing.T, test func(t *testing.T, open func() Store)) {
	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kv.db")
		test(t, func() Store {
			s, err := OpenBolt(path, &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "test store"}, bucketA, bucketB)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		test(t, func() Store {
			s, err := OpenPostgres(context.Background(), srv.DSN, "test_kv", bucketA, bucketB)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
}

func key(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func TestStoreBasics(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		s := open()
		// Across pages of ForEach, in key order, and in two buckets.
		const n = pageRows*2 + 7
		err := s.Update(func(tx Tx) error {
			for i := n - 1; i >= 0; i-- {
				if err := tx.Bucket(bucketA).Put(key(i), []byte(fmt.Sprint(i))); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketB).Put([]byte("empty"), nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.View(func(tx Tx) error {
			a, b := tx.Bucket(bucketA), tx.Bucket(bucketB)
			if got := string(a.Get(key(42))); got != "42" {
				t.Errorf("Get = %q", got)
			}
			if a.Get(key(n)) != nil {
				t.Error("Get of a missing key is not nil")
			}
			if v := b.Get([]byte("empty")); v == nil || len(v) != 0 {
				t.Errorf("Get of an empty value = %v, want empty and not nil", v)
			}
			if b.Get(key(42)) != nil {
				t.Error("buckets are not apart")
			}
			k, v := a.Last()
			if binary.BigEndian.Uint64(k) != n-1 || string(v) != fmt.Sprint(n-1) {
				t.Errorf("Last = %x %q", k, v)
			}
			i := 0
			err := a.ForEach(func(k, v []byte) error {
				if binary.BigEndian.Uint64(k) != uint64(i) || string(v) != fmt.Sprint(i) {
					return fmt.Errorf("pair %d is %x %q", i, k, v)
				}
				i++
				return nil
			})
			if i != n {
				t.Errorf("ForEach saw %d pairs, want %d", i, n)
			}
			if err != nil {
				return err
			}
			from := pageRows - 3
			i = from
			err = a.ForEachFrom(key(from), func(k, v []byte) error {
				if binary.BigEndian.Uint64(k) != uint64(i) {
					return fmt.Errorf("ForEachFrom(%d): pair %d is %x", from, i, k)
				}
				i++
				return nil
			})
			if i != n {
				t.Errorf("ForEachFrom(%d) ended at %d, want %d", from, i, n)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// A failed Update leaves nothing behind; Delete removes.
		boom := errors.New("boom")
		err = s.Update(func(tx Tx) error {
			tx.Bucket(bucketA).Delete(key(1))
			tx.Bucket(bucketA).Put(key(n+1), []byte("x"))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Update = %v, want boom", err)
		}
		err = s.Update(func(tx Tx) error { return tx.Bucket(bucketA).Delete(key(2)) })
		if err != nil {
			t.Fatal(err)
		}
		s.View(func(tx Tx) error {
			a := tx.Bucket(bucketA)
			if a.Get(key(1)) == nil || a.Get(key(n+1)) != nil {
				t.Error("a failed Update changed the store")
			}
			if a.Get(key(2)) != nil {
				t.Error("Delete did not remove the key")
			}
			return nil
		})
	})
}

// TestStoreConcurrentUpdates: transactions on two connections that read
// and write the same key lose no update.
func TestStoreConcurrentUpdates(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		s1 := open()
		s2 := s1
		if _, ok := s1.(*Postgres); ok {
			s2 = open() // another manager
		}
		const each = 60
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for _, s := range []Store{s1, s2, s1, s2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					err := s.Update(func(tx Tx) error {
						b := tx.Bucket(bucketA)
						n := 0
						if v := b.Get([]byte("n")); v != nil {
							n = int(binary.BigEndian.Uint64(v))
						}
						return b.Put([]byte("n"), key(n+1))
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		s1.View(func(tx Tx) error {
			if got := binary.BigEndian.Uint64(tx.Bucket(bucketA).Get([]byte("n"))); got != 4*each {
				t.Errorf("counter = %d, want %d", got, 4*each)
			}
			return nil
		})
		if p, ok := s1.(*Postgres); ok {
			t.Logf("transactions run again after a conflict: %d", p.Retries()+s2.(*Postgres).Retries())
		}
	})
}

func TestPostgresSchema(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	s, err := OpenPostgres(ctx, srv.DSN, "schema_kv", bucketA)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Opening again runs no migration twice.
	if s, err = OpenPostgres(ctx, srv.DSN, "schema_kv", bucketA); err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE hivecrawl_schema SET version = 99 WHERE name = 'schema_kv'`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, srv.DSN, "schema_kv", bucketA); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("open a newer schema: %v, want ErrNewerSchema", err)
	}
	if _, err := OpenPostgres(ctx, srv.DSN, "Bad-Name", bucketA); err == nil {
		t.Fatal("a bad table name was taken")
	}
	if _, err := OpenPostgres(ctx, "postgres://u:secret@[::1", "x", bucketA); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a bad address: %v", err)
	}
}

// TestForEachPrefix reads the pairs of one prefix and no other, on both
// stores: keys before and after it, and one that only begins like it.
func TestForEachPrefix(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		s := open()
		keys := []string{"a\x00z", "b\x00", "b\x00x", "b\x00y", "b\x01", "ba", "c"}
		err := s.Update(func(tx Tx) error {
			for _, k := range keys {
				if err := tx.Bucket(bucketA).Put([]byte(k), []byte("v"+k)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		err = s.View(func(tx Tx) error {
			return ForEachPrefix(tx.Bucket(bucketA), []byte("b\x00"), func(k, v []byte) error {
				if string(v) != "v"+string(k) {
					return fmt.Errorf("%q holds %q", k, v)
				}
				got = append(got, string(k))
				return nil
			})
		})
		if want := []string{"b\x00", "b\x00x", "b\x00y"}; err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("ForEachPrefix = %q, %v; want %q", got, err, want)
		}
		boom := errors.New("boom")
		err = s.View(func(tx Tx) error {
			return ForEachPrefix(tx.Bucket(bucketA), []byte("b"), func([]byte, []byte) error { return boom })
		})
		if !errors.Is(err, boom) {
			t.Errorf("ForEachPrefix returned %v, want fn's error", err)
		}
	})
}
