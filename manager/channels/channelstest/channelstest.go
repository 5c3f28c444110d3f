// Package channelstest opens channel databases for other packages'
// tests.
package channelstest

import (
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// Open opens an empty channel database in a temporary directory, closed
// when the test ends.
func Open(t testing.TB) *channels.DB {
	t.Helper()
	d, err := channels.Open(filepath.Join(t.TempDir(), "channels.db"), channels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
