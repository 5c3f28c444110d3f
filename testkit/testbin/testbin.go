// Package testbin gives tests the binaries they run as child processes:
// the hivecrawl program itself (Program), and a test binary of their
// package built without the race detector, which multiplies memory use,
// for tests that measure a child's memory (WithoutRace).
//
// Every binary here is built as scripts/package.sh builds the release
// (-trimpath, no cgo), so a cold run of the suite compiles the tree for
// them once, and shares it with the installer's build.
package testbin

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	cmd := exec.Command("go", "test", "-c", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build a test binary without the race detector: %v\n%s", err, b)
	}
	return bin
}

// AdversaryTag is the build tag that puts the test kit's dishonest
// volunteers in the program (cmd/hivecrawl/adversary.go).
const AdversaryTag = "adversary"

// ProgramEnv names a hivecrawl binary built from this tree for the whole
// test run: scripts/gotest-json.sh builds it once before the packages
// that run the program, rather than each building it beside the others.
const ProgramEnv = "HIVECRAWL_TEST_BIN"

// Program returns the hivecrawl binary for tests that run the program:
// $HIVECRAWL_TEST_BIN when set, else one built into dir. Either carries
// the test kit's dishonest volunteers (-tags adversary), which the
// demo's tests run; it is the installed program otherwise.
func Program(dir string) (string, error) {
	if bin := os.Getenv(ProgramEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s: %w", ProgramEnv, err)
		}
		return bin, nil
	}
	bin := filepath.Join(dir, "hivecrawl")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", AdversaryTag, "-o", bin, "github.com/hivecrawl/hivecrawl/cmd/hivecrawl")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// Nobody is the user and group a root test runs a child as, so that file
// permissions bind it as they bind a volunteer: root reads a file of mode
// 0000.
const Nobody = 65534

// AsUser sets cmd to run as Nobody, from a copy of its binary that every
// user may run, when the test runs as root; otherwise cmd is left as it
// is. dirs, which must lie in the temporary directory, are chowned to
// Nobody (recursively) so the child owns its files as a volunteer owns
// theirs.
func AsUser(t testing.TB, cmd *exec.Cmd, dirs ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	dir, err := os.MkdirTemp("", "hivecrawl-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, filepath.Base(cmd.Path))
	b, err := os.ReadFile(cmd.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, Nobody, Nobody)
		})
		if err != nil {
			t.Fatal(err)
		}
		// Every directory above d, up to the temporary directory, must
		// let the child through (t.TempDir makes them 0700).
		tmp := filepath.Clean(os.TempDir())
		for p := filepath.Dir(d); strings.HasPrefix(p, tmp+string(filepath.Separator)); p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o001 == 0 {
				os.Chmod(p, fi.Mode().Perm()|0o001)
			}
		}
	}
	cmd.Path = bin
	if len(cmd.Args) > 0 {
		cmd.Args[0] = bin
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
}
