package manager

import (
	"context"
	"fmt"

	"github.com/hivecrawl/hivecrawl/manager/storage/bucket"
)

// openStore opens the object store of store URL store (Options.Storage.Store),
// with the endpoint and credentials getenv reads.
func openStore(ctx context.Context, store string, getenv func(string) string) (*bucket.Bucket, error) {
	cfg, err := bucket.FromEnv(store, getenv)
	if err != nil {
		return nil, fmt.Errorf("WARC store: %w", err)
	}
	b, err := bucket.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("WARC store: %w", err)
	}
	return b, nil
}
