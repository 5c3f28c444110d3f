package layering

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/hivecrawl/hivecrawl"

// rule forbids packages under from from depending on any package banned
// lists: transitively, or only by direct import when direct is set (pure
// cores may use fmt, which itself imports os, but must not open files).
type rule struct {
	from   string
	banned []string
	direct bool
}

var rules = []rule{
	{"task", []string{mod + "/"}, false},
	{"crawler", []string{mod + "/p2p", mod + "/ui", mod + "/app", mod + "/manager", mod + "/sim"}, false},
	{"p2p", []string{mod + "/crawler", mod + "/ui", mod + "/app", mod + "/manager", mod + "/sim"}, false},
	{"ui", []string{mod + "/app", mod + "/manager", mod + "/sim"}, false},
	{"manager", []string{mod + "/app", mod + "/ui", mod + "/sim"}, false},
	// The manager's protocols, as both ends speak them: the client reaches
	// them without importing the service that answers.
	{"proto", []string{mod + "/app", mod + "/manager", mod + "/ui", mod + "/sim", mod + "/swarm"}, false},
	{"sim", []string{mod + "/app", mod + "/ui", mod + "/manager", "github.com/libp2p/", "go.etcd.io/bbolt"}, false},
	// The scheduling cores serve the manager and the simulator alike, so
	// they live apart from both and depend on neither.
	{"sched", []string{mod + "/"}, false},
	// Sharing waiting tasks is the overlay's client, not part of it: the
	// node names the takers and carries the offers.
	{"p2p/share", []string{mod + "/p2p/node"}, false},
	// So is handing a leaving peer's tasks to the heirs the node names.
	{"p2p/handover", []string{mod + "/p2p/node"}, false},
	// Pure cores: no network, no disk, no libp2p.
	{"p2p/can", pure, true},
	{"p2p/coord", pure, true},
	{"sched", pure, true},
	{"manager/indexnow", pure, true},
	{"sim", []string{"net", "net/http"}, true},
	// internal/ holds libraries only: they import nothing of the module
	// but each other.
	{"internal", above("internal"), false},
}

// product lists the folders whose packages ship in the program. None of
// them may depend on the test kit or the benchmarks, which exist for the
// tests and for make bench alone.
var product = []string{"app", "assets", "cmd", "crawler", "installer", "internal", "manager", "p2p", "proto", "sched", "sim", "swarm", "task", "ui"}

// above lists every top folder of the module but the one named.
func above(self string) []string {
	var out []string
	for _, f := range append(slices.Clone(product), "bench", "testkit") {
		if f != self {
			out = append(out, mod+"/"+f)
		}
	}
	return out
}

func init() {
	for _, f := range product {
		rules = append(rules, rule{f, []string{mod + "/testkit", mod + "/bench"}, false})
	}
}

// soloEmbeds are the manager's packages the client imports, to run the
// manager in its own process in solo mode: the service, its channel
// database and search store as the dashboard shows them, and the memory
// admission storage asks of its host.
var soloEmbeds = []string{"manager", "manager/channels", "manager/search", "manager/storage"}

// pure lists what a pure core may not import: network, disk, libp2p. (Time
// and randomness are passed in; that is checked by review, not here.)
var pure = []string{"net", "net/http", "os", "github.com/libp2p/", "go.etcd.io/bbolt"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps", mod+"/...")
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, strings.TrimSuffix(prefix, "/")+"/")
}

func TestDependencyDirection(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 3 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		if top, _, _ := strings.Cut(rel, "/"); !slices.Contains(product, top) && top != "bench" && top != "testkit" {
			t.Errorf("%s is in %s/, a folder the rules do not know: name it in product, or put it in bench/ or testkit/", p.ImportPath, top)
		}
		for _, r := range rules {
			if !under(rel, r.from) {
				continue
			}
			deps := p.Deps
			if r.direct {
				deps = p.Imports
			}
			for _, d := range deps {
				for _, b := range r.banned {
					if banned(d, b) {
						t.Errorf("%s depends on %s (banned for %s/...)", p.ImportPath, d, r.from)
					}
				}
			}
		}
		// The client speaks the manager's protocols through proto/; of
		// the manager's own packages it imports only what solo mode
		// embeds.
		if under(rel, "app") {
			for _, d := range p.Imports {
				if under(strings.TrimPrefix(d, mod+"/"), "manager") && strings.HasPrefix(d, mod+"/") && !slices.Contains(soloEmbeds, strings.TrimPrefix(d, mod+"/")) {
					t.Errorf("%s imports %s: the client reaches the manager through proto/, and embeds only %v in solo mode", p.ImportPath, d, soloEmbeds)
				}
			}
		}
		// Nothing but cmd imports the wiring point itself; app's leaf
		// packages (paths, config, ledger) are libraries the one-machine
		// swarm tooling may use, while the layers above ban all of app.
		if !under(rel, "app") && !under(rel, "cmd") {
			for _, d := range p.Deps {
				if d == mod+"/app" {
					t.Errorf("%s imports %s: nothing but cmd imports the client's wiring point", p.ImportPath, d)
				}
			}
		}
	}
}

func TestRuleMatching(t *testing.T) {
	// The matcher must catch a banned dependency, or the test above proves nothing.
	cases := []struct {
		dep, banned string
		want        bool
	}{
		{mod + "/p2p/can", mod + "/p2p", true},
		{mod + "/p2pfoo", mod + "/p2p", false},
		{"net", "net", true},
		{"net/http", "net", false},
		{"github.com/libp2p/go-libp2p", "github.com/libp2p/", true},
		{"go.etcd.io/bbolt/internal", "go.etcd.io/bbolt", true},
	}
	for _, c := range cases {
		if got := banned(c.dep, c.banned); got != c.want {
			t.Errorf("banned(%q, %q) = %v, want %v", c.dep, c.banned, got, c.want)
		}
	}
}

// banned reports whether dep matches the banned entry b: a prefix ending in
// "/" matches everything below it; a module-style path (with a dot) matches
// itself and its sub-packages; a standard-library path matches only itself,
// so banning "net" leaves "net/url" allowed.
func banned(dep, b string) bool {
	switch {
	case strings.HasSuffix(b, "/"):
		return strings.HasPrefix(dep, b)
	case strings.Contains(strings.SplitN(b, "/", 2)[0], "."):
		return under(dep, b)
	default:
		return dep == b
	}
}

// TestNoDateParserTables keeps go-dateparser's locale tables out of every
// program: they are built at start-up (about 78 MB allocated, 27 MB kept)
// and Hivecrawl extracts no dates, so go.mod replaces the module with
// third_party/nodateparser, which has no sub-packages.
func TestNoDateParserTables(t *testing.T) {
	const tables = "github.com/markusmobius/go-dateparser/internal/"
	linked := false
	for _, p := range listPackages(t) {
		for _, d := range p.Deps {
			if d == "github.com/markusmobius/go-trafilatura" {
				linked = true
			}
			if strings.HasPrefix(d, tables) {
				t.Errorf("%s depends on %s: go-dateparser's locale tables are linked again (see third_party/nodateparser)", p.ImportPath, d)
				break
			}
		}
	}
	if !linked {
		t.Fatal("no package links go-trafilatura: the check above proves nothing")
	}
}

// maxLines bounds a hand-written Go file outside the tests: past it a file
// mixes concerns, and its parts want files (or packages) of their own.
const maxLines = 500

// TestFileLength keeps every hand-written non-test Go file of the module
// within maxLines. Generated files (marked as Go marks them) and
// third_party/ are not ours to split.
func TestFileLength(t *testing.T) {
	root := "../.."
	generated := regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "third_party", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated.Match(b) {
			return nil
		}
		checked++
		if n := bytes.Count(b, []byte("\n")); n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines, more than %d: split it by concern", rel, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files: is the walk rooted at the module?", checked)
	}
}
