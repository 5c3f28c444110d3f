package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres tuning.
const (
	// TxTimeout bounds one transaction, retries included.
	TxTimeout = 2 * time.Minute
	// pageRows is how many rows ForEach reads per query.
	pageRows = 2000
	// maxAttempts bounds how often Update runs a conflicting transaction.
	maxAttempts = 30
	// batchWrites is how many writes a transaction queues before sending
	// them in one round trip; a read sends them first.
	batchWrites = 500
)

// tableName is what OpenPostgres accepts as a table name.
var tableName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// Postgres is a Store in one table of a PostgreSQL database, which
// several processes may share.
type Postgres struct {
	pool    *pgxpool.Pool
	table   string
	buckets map[string]bool
	// q are the statements, with the table's name in them.
	q queries

	ctx    context.Context // ends at Close
	cancel context.CancelFunc

	mu      sync.Mutex // guards retries
	retries int
}

var _ Store = (*Postgres)(nil)

type queries struct{ get, put, del, from, page, last string }

// OpenPostgres connects to the database at dsn (a postgres:// URL or
// key=value string, as pgx takes it), brings table to the newest schema
// and returns it as a store of the named buckets.
func OpenPostgres(ctx context.Context, dsn, table string, buckets ...[]byte) (*Postgres, error) {
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("open PostgreSQL store: bad table name %q", table)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message can quote the password; say only what is wrong.
		return nil, fmt.Errorf("open PostgreSQL store %s: the database address does not parse (want postgres://user:password@host/database)", table)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL store %s: %w", table, err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL store %s: connect to %s: %w", table, cfg.ConnConfig.Host, err)
	}
	err = migrate(ctx, conn.Conn(), table)
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL store %s: %w", table, err)
	}
	t := pgx.Identifier{table}.Sanitize()
	p := &Postgres{pool: pool, table: table, buckets: map[string]bool{}, q: queries{
		get:  `SELECT value FROM ` + t + ` WHERE bucket = $1 AND key = $2`,
		put:  `INSERT INTO ` + t + ` (bucket, key, value) VALUES ($1, $2, $3) ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value`,
		del:  `DELETE FROM ` + t + ` WHERE bucket = $1 AND key = $2`,
		from: `SELECT key, value FROM ` + t + ` WHERE bucket = $1 AND key >= $2 ORDER BY key LIMIT ` + fmt.Sprint(pageRows),
		page: `SELECT key, value FROM ` + t + ` WHERE bucket = $1 AND key > $2 ORDER BY key LIMIT ` + fmt.Sprint(pageRows),
		last: `SELECT key, value FROM ` + t + ` WHERE bucket = $1 ORDER BY key DESC LIMIT 1`,
	}}
	for _, b := range buckets {
		p.buckets[string(b)] = true
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// View implements Store, in a read-only snapshot (REPEATABLE READ).
func (p *Postgres) View(fn func(Tx) error) error {
	ctx, cancel := context.WithTimeout(p.ctx, TxTimeout)
	defer cancel()
	return p.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// Update implements Store, in a SERIALIZABLE transaction, run again
// (after a short random wait) when PostgreSQL aborts it for a conflict
// with a concurrent transaction.
func (p *Postgres) Update(fn func(Tx) error) error {
	ctx, cancel := context.WithTimeout(p.ctx, TxTimeout)
	defer cancel()
	wait := time.Millisecond
	for attempt := 1; ; attempt++ {
		err := p.run(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn)
		if !retryable(err) || attempt == maxAttempts {
			return err
		}
		p.mu.Lock()
		p.retries++
		p.mu.Unlock()
		select {
		case <-time.After(wait/2 + rand.N(wait)):
		case <-ctx.Done():
			return fmt.Errorf("%w (after %d conflicting attempts)", err, attempt)
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// Retries returns how many transactions Update ran again after a conflict.
func (p *Postgres) Retries() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.retries
}

// Close closes the connections; transactions under way fail.
func (p *Postgres) Close() error {
	p.cancel()
	p.pool.Close()
	return nil
}

func (p *Postgres) run(ctx context.Context, opts pgx.TxOptions, fn func(Tx) error) error {
	if p.ctx.Err() != nil {
		return ErrClosed
	}
	tx, err := p.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin transaction on %s: %w", p.table, err)
	}
	t := &pgTx{p: p, ctx: ctx, tx: tx}
	err = fn(t)
	if err == nil {
		t.flush()
		err = t.err
	} else if t.err != nil && retryable(t.err) {
		err = t.err // fn failed because a read did
	}
	if err != nil {
		tx.Rollback(ctx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit to %s: %w", p.table, err)
	}
	return nil
}

// retryable says whether err is PostgreSQL aborting a transaction for a
// conflict: a serialization failure or a deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgTx is one transaction. Its first failure is kept in err. Writes are
// queued in batch and sent before the next read and before the commit,
// so a transaction reads its own writes.
type pgTx struct {
	p     *Postgres
	ctx   context.Context
	tx    pgx.Tx
	err   error
	batch pgx.Batch
}

// queue adds a write to the batch, sending it when full.
func (t *pgTx) queue(sql string, args ...any) error {
	if t.err != nil {
		return t.err
	}
	t.batch.Queue(sql, args...)
	if t.batch.Len() >= batchWrites {
		return t.flush()
	}
	return nil
}

// flush sends the queued writes.
func (t *pgTx) flush() error {
	if t.batch.Len() == 0 || t.err != nil {
		return t.err
	}
	b := t.batch
	t.batch = pgx.Batch{}
	if err := t.tx.SendBatch(t.ctx, &b).Close(); err != nil {
		t.fail(fmt.Errorf("write to %s: %w", t.p.table, err))
	}
	return t.err
}

func (t *pgTx) Bucket(name []byte) Bucket {
	if !t.p.buckets[string(name)] {
		panic(fmt.Sprintf("kv: store %s has no bucket %q", t.p.table, name))
	}
	return &pgBucket{t: t, name: string(name)}
}

func (t *pgTx) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

type pgBucket struct {
	t    *pgTx
	name string
}

func (b *pgBucket) Get(key []byte) []byte {
	if b.t.flush() != nil {
		return nil
	}
	var v []byte
	err := b.t.tx.QueryRow(b.t.ctx, b.t.p.q.get, b.name, key).Scan(&v)
	if err != nil {
		if err != pgx.ErrNoRows {
			b.t.fail(fmt.Errorf("read %s/%x: %w", b.name, key, err))
		}
		return nil
	}
	if v == nil {
		v = []byte{} // present but empty, as bbolt tells them apart
	}
	return v
}

func (b *pgBucket) Put(key, value []byte) error {
	if len(key) == 0 {
		return errors.New("put: empty key")
	}
	if value == nil {
		value = []byte{}
	}
	// The caller may reuse its slices once Put returns.
	return b.t.queue(b.t.p.q.put, b.name, bytes.Clone(key), bytes.Clone(value))
}

func (b *pgBucket) Delete(key []byte) error {
	return b.t.queue(b.t.p.q.del, b.name, bytes.Clone(key))
}

func (b *pgBucket) ForEach(fn func(key, value []byte) error) error {
	return b.ForEachFrom(nil, fn)
}

// ForEachFrom reads the bucket a page at a time, so fn may use the
// transaction between pages.
func (b *pgBucket) ForEachFrom(from []byte, fn func(key, value []byte) error) error {
	q, after := b.t.p.q.from, from
	if after == nil {
		after = []byte{}
	}
	for {
		if err := b.t.flush(); err != nil {
			return err
		}
		rows, err := b.t.tx.Query(b.t.ctx, q, b.name, after)
		if err != nil {
			err = fmt.Errorf("list %s: %w", b.name, err)
			b.t.fail(err)
			return err
		}
		var keys, values [][]byte
		for rows.Next() {
			var k, v []byte
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				b.t.fail(err)
				return err
			}
			keys, values = append(keys, k), append(values, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			err = fmt.Errorf("list %s: %w", b.name, err)
			b.t.fail(err)
			return err
		}
		for i := range keys {
			if err := fn(keys[i], values[i]); err != nil {
				return err
			}
		}
		if len(keys) < pageRows {
			return nil
		}
		q, after = b.t.p.q.page, keys[len(keys)-1]
	}
}

func (b *pgBucket) Last() (key, value []byte) {
	if b.t.flush() != nil {
		return nil, nil
	}
	err := b.t.tx.QueryRow(b.t.ctx, b.t.p.q.last, b.name).Scan(&key, &value)
	if err != nil {
		if err != pgx.ErrNoRows {
			b.t.fail(fmt.Errorf("read the last of %s: %w", b.name, err))
		}
		return nil, nil
	}
	return key, value
}
