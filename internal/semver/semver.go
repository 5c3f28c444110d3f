// Package semver parses and orders the release versions Hivecrawl names
// itself with: MAJOR.MINOR.PATCH, an optional leading "v", and an optional
// pre-release ("-rc.1"), which orders before its release as Semantic
// Versioning 2.0.0 says. Build metadata ("+abc") is accepted and ignored.
//
// Caveat: pre-release identifiers are compared as whole strings, numeric
// ones by value; that is the specification's order for the forms releases
// use ("-rc.1" < "-rc.2" < release).
package semver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every parse failure.
var ErrMalformed = errors.New("not a version of the form X.Y.Z")

// maxLen bounds what Parse reads: a version is short.
const maxLen = 64

// Version is a parsed release version.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the pre-release, without its "-"; empty for a release.
	Pre string
}

// Parse parses s, such as "0.2.0", "v1.4.2" or "1.0.0-rc.1".
func Parse(s string) (Version, error) {
	if len(s) > maxLen {
		return Version{}, fmt.Errorf("version of %d characters: %w", len(s), ErrMalformed)
	}
	rest := strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		if !idents(rest[i+1:]) {
			return Version{}, fmt.Errorf("version %q: %w", s, ErrMalformed)
		}
		rest = rest[:i]
	}
	var v Version
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		v.Pre = rest[i+1:]
		if !idents(v.Pre) {
			return Version{}, fmt.Errorf("version %q: %w", s, ErrMalformed)
		}
		rest = rest[:i]
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("version %q: %w", s, ErrMalformed)
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return Version{}, fmt.Errorf("version %q: %w", s, ErrMalformed)
		}
		*nums[i] = n
	}
	return v, nil
}

// number parses a numeric identifier: digits, no leading zero.
func number(p string) (uint64, bool) {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return 0, false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(p, 10, 64)
	return n, err == nil
}

// idents reports whether s is dot-separated non-empty [0-9A-Za-z-]
// identifiers.
func idents(s string) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for _, c := range id {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
				return false
			}
		}
	}
	return true
}

// String formats v as "X.Y.Z" or "X.Y.Z-PRE".
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare returns -1, 0 or +1 as v is older than, the same as, or newer
// than w.
func (v Version) Compare(w Version) int {
	for _, d := range [][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	a, b := strings.Split(v.Pre, "."), strings.Split(w.Pre, ".")
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareIdent(a[i], b[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// compareIdent orders pre-release identifiers: numeric ones by value and
// before alphanumeric ones, which order as strings.
func compareIdent(a, b string) int {
	na, aok := number(a)
	nb, bok := number(b)
	switch {
	case aok && bok:
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// Older reports whether s, a client's stated version, is older than min.
// A version that does not parse counts as older: a client that cannot
// say which release it is cannot show that it is recent enough.
func Older(s string, min Version) bool {
	v, err := Parse(s)
	return err != nil || v.Compare(min) < 0
}
