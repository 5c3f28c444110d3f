package kv

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migrations are the schema changes of one store's table, in order; the
// table's version is how many have run. %[1]s is the table's name. Append
// to it; never edit a step that has shipped.
var migrations = []string{
	// 1: the buckets. Keys sort as bytes, as in bbolt.
	`CREATE TABLE %[1]s (
		bucket text NOT NULL,
		key bytea NOT NULL,
		value bytea NOT NULL,
		PRIMARY KEY (bucket, key)
	)`,
}

// migrationsTable records each store table's schema version.
const migrationsTable = `CREATE TABLE IF NOT EXISTS hivecrawl_schema (
	name text PRIMARY KEY,
	version integer NOT NULL
)`

// migrate brings table to the newest schema, once even when several
// managers start at the same moment: the steps run in one transaction
// under an advisory lock.
func migrate(ctx context.Context, conn *pgx.Conn, table string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	// Any fixed number: it only has to be the same in every manager.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7339021)`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, migrationsTable); err != nil {
		return err
	}
	var version int
	err = tx.QueryRow(ctx, `SELECT version FROM hivecrawl_schema WHERE name = $1`, table).Scan(&version)
	if err != nil && err != pgx.ErrNoRows {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("table %s is at version %d, this program knows %d: %w", table, version, len(migrations), ErrNewerSchema)
	}
	ident := pgx.Identifier{table}.Sanitize()
	for i := version; i < len(migrations); i++ {
		if _, err := tx.Exec(ctx, fmt.Sprintf(migrations[i], ident)); err != nil {
			return fmt.Errorf("migration %d of %s: %w", i+1, table, err)
		}
	}
	_, err = tx.Exec(ctx, `INSERT INTO hivecrawl_schema (name, version) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version`, table, len(migrations))
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}
