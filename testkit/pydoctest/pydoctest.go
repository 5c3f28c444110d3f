// Package pydoctest gives tests real, large documentation pages: Debian's
// python3-doc, the Python manual as Sphinx builds it (inline markup in
// every sentence, a permalink mark on every heading and definition,
// pages from a few kilobytes to 2.5 MB).
//
// Without python3-doc a test that asks for a page is skipped with the
// reason, or fails when the environment variable CI is set, so a CI
// machine cannot pass by leaving the package out.
package pydoctest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Dir is where Debian's python3-doc installs the manual's HTML (a link to
// the versioned tree).
const Dir = "/usr/share/doc/python3-doc/html"

// Need skips t, or fails it when CI is set, unless python3-doc is
// installed.
func Need(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(Dir, "index.html")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3-doc not installed (apt-get install -y --no-install-recommends python3-doc): %v", err)
		}
		t.Skipf("python3-doc not installed (apt-get install -y --no-install-recommends python3-doc); set CI to make this a failure: %v", err)
	}
}

// Page returns the page at rel under Dir ("library/shutil.html"); see
// Need for a machine without python3-doc.
func Page(t testing.TB, rel string) []byte {
	t.Helper()
	Need(t)
	b, err := os.ReadFile(filepath.Join(Dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read python3-doc page: %v", err)
	}
	return b
}

// Pages lists the manual's pages under Dir, relative and in path order,
// one in every (all when every is 1 or less), leaving out the directories
// of static files; see Need for a machine without python3-doc.
func Pages(t testing.TB, every int) []string {
	t.Helper()
	Need(t)
	dir, err := filepath.EvalSymlinks(Dir)
	if err != nil {
		t.Fatalf("list python3-doc pages: %v", err)
	}
	var all []string
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "_") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".html") {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list python3-doc pages: %v", err)
	}
	slices.Sort(all)
	if every <= 1 {
		return all
	}
	var some []string
	for i, p := range all {
		if i%every == 0 {
			some = append(some, p)
		}
	}
	return some
}
