// Package semver parses and orders the release versions Hivecrawl names
// itself with: MAJOR.MINOR.PATCH, an optional leading "v", and an optional
// pre-release ("-rc.1"), which orders before its release as Semantic
// Versioning 2.0.0 says. Build metadata ("+abc") is accepted and ignored.
//
// Validity and order are golang.org/x/mod/semver's (the Go toolchain's
// own), which follows the specification; this package adds what it does
// not: the "v" is optional, and all three numbers are required.
package semver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
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
	bad := fmt.Errorf("version %q: %w", s, ErrMalformed)
	v := "v" + strings.TrimPrefix(s, "v")
	if !semver.IsValid(v) {
		return Version{}, bad
	}
	core := strings.TrimPrefix(semver.Canonical(v), "v")
	core, _, _ = strings.Cut(core, "-")
	if !strings.HasPrefix(v[1:], core) {
		return Version{}, bad // "1.2" is valid shorthand there, not here
	}
	var nums [3]uint64
	for i, p := range strings.Split(core, ".") {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return Version{}, bad
		}
		nums[i] = n
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2], Pre: strings.TrimPrefix(semver.Prerelease(v), "-")}, nil
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
	return semver.Compare("v"+v.String(), "v"+w.String())
}

// Older reports whether s, a client's stated version, is older than min.
// A version that does not parse counts as older: a client that cannot
// say which release it is cannot show that it is recent enough.
func Older(s string, min Version) bool {
	v, err := Parse(s)
	return err != nil || v.Compare(min) < 0
}
