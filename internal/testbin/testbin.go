// Package testbin gives tests that measure a child process's memory a test
// binary of their package built without the race detector, which
// multiplies memory use: the figures are then the program's own.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// WithoutRace returns a test binary of the package in the current
// directory without the race detector: os.Args[0] when the running binary
// has none (race is false), else one built with `go test -c` into a
// directory removed when t ends.
func WithoutRace(t testing.TB, race bool) string {
	t.Helper()
	if !race {
		return os.Args[0]
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(dir)+".test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build a test binary without the race detector: %v\n%s", err, b)
	}
	return bin
}
