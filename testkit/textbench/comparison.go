package textbench

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
)

// TrafilaturaModule is the module whose comparison set LoadComparison reads.
const TrafilaturaModule = "github.com/markusmobius/go-trafilatura"

// ErrNoComparison is returned (wrapped) by LoadComparison and ComparisonDir
// when go-trafilatura's module directory, or its comparison set, is not on
// this machine.
var ErrNoComparison = errors.New("go-trafilatura comparison set not found")

// Case is one page with its expected main-text snippets.
type Case struct {
	Name    string // file name, for reports
	URL     string
	HTML    []byte
	With    []string // must be in the main text
	Without []string // must not be
}

// ComparisonDir returns the directory of the go-trafilatura module this
// program was built with, in the module cache (GOMODCACHE, else
// GOPATH/pkg/mod, else ~/go/pkg/mod). A binary without module information
// (a test) asks `go list -m` instead.
func ComparisonDir() (string, error) {
	dir, err := moduleDir()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "scripts", "comparison", "data.go")); err != nil {
		return "", fmt.Errorf("%w: %v (run `go mod download %s`)", ErrNoComparison, err, TrafilaturaModule)
	}
	return dir, nil
}

func moduleDir() (string, error) {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == TrafilaturaModule {
				version = m.Version
			}
		}
	}
	if version == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", TrafilaturaModule).Output()
		if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
			return dir, nil
		}
		return "", fmt.Errorf("%w: %s is not in this build", ErrNoComparison, TrafilaturaModule)
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("find the module cache: %w", err)
			}
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	// The module cache spells upper-case letters as !lower; this path
	// has none.
	return filepath.Join(cache, TrafilaturaModule+"@"+version), nil
}

// LoadComparison reads go-trafilatura's comparison set from its module
// directory dir: the cases of scripts/comparison/data.go whose page is in
// test-files/comparison or test-files/mock (the script looks in both), in
// file-name order.
func LoadComparison(dir string) ([]Case, error) {
	src, err := os.ReadFile(filepath.Join(dir, "scripts", "comparison", "data.go"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoComparison, err)
	}
	entries, err := ParseComparisonData(src)
	if err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(entries))
	for _, c := range entries {
		var body []byte
		for _, sub := range []string{"comparison", "mock"} {
			if body, err = os.ReadFile(filepath.Join(dir, "test-files", sub, c.Name)); err == nil {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("read page of %s: %w", c.URL, err)
		}
		c.HTML = body
		cases = append(cases, c)
	}
	return cases, nil
}

// ParseComparisonData reads the cases (without their pages) from the Go
// source of go-trafilatura's scripts/comparison/data.go: the composite
// literal of its comparisonData map, keyed by URL, with File, With and
// Without fields. Other fields are ignored.
func ParseComparisonData(src []byte) ([]Case, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "data.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse comparison data: %w", err)
	}
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || lit != nil {
			return lit == nil
		}
		for i, name := range vs.Names {
			if name.Name == "comparisonData" && i < len(vs.Values) {
				lit, _ = vs.Values[i].(*ast.CompositeLit)
			}
		}
		return false
	})
	if lit == nil {
		return nil, errors.New("parse comparison data: no comparisonData map literal")
	}
	var cases []Case
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		u, ok := stringLit(kv.Key)
		if !ok {
			continue
		}
		entry, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			continue
		}
		c := Case{URL: u}
		for _, fe := range entry.Elts {
			fkv, ok := fe.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := fkv.Key.(*ast.Ident)
			if !ok {
				continue
			}
			switch key.Name {
			case "File":
				c.Name, _ = stringLit(fkv.Value)
			case "With":
				c.With = stringList(fkv.Value)
			case "Without":
				c.Without = stringList(fkv.Value)
			}
		}
		if c.Name == "" || filepath.Base(c.Name) != c.Name {
			continue // no page, or one outside the test-files directories
		}
		cases = append(cases, c)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}

func stringList(e ast.Expr) []string {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range cl.Elts {
		if s, ok := stringLit(x); ok {
			out = append(out, s)
		}
	}
	return out
}
