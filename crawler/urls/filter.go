package urls

import (
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Filter decides whether a URL may be crawled.
type Filter interface {
	Match(u *url.URL) bool
}

// FilterFunc adapts a function to Filter.
type FilterFunc func(u *url.URL) bool

// Match calls f(u).
func (f FilterFunc) Match(u *url.URL) bool { return f(u) }

var _ Filter = FilterFunc(nil)

// All matches every URL.
var All Filter = FilterFunc(func(*url.URL) bool { return true })

// Domain matches URLs whose host is domain or one of its subdomains:
// Domain("example.com") matches example.com and news.example.com but not
// badexample.com. Comparison ignores case and a trailing dot.
func Domain(domain string) Filter {
	d := strings.TrimSuffix(strings.ToLower(domain), ".")
	return FilterFunc(func(u *url.URL) bool {
		h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		return h == d || strings.HasSuffix(h, "."+d)
	})
}

// Prefix matches URLs whose string form starts with prefix. Give prefix in
// canonical form (see Canonical), as the URLs it is compared with are.
func Prefix(prefix string) Filter {
	return FilterFunc(func(u *url.URL) bool {
		return strings.HasPrefix(u.String(), prefix)
	})
}

// Protocol matches URLs whose scheme is one of schemes (case-insensitive).
func Protocol(schemes ...string) Filter {
	set := make(map[string]bool, len(schemes))
	for _, s := range schemes {
		set[strings.ToLower(s)] = true
	}
	return FilterFunc(func(u *url.URL) bool {
		return set[strings.ToLower(u.Scheme)]
	})
}

// MaxPatternLength and MaxPatternInsts bound a regular expression from a task:
// patterns come from outside, and a huge one would cost every URL checked.
const (
	MaxPatternLength = 1024
	MaxPatternInsts  = 20000
)

// Regex matches URLs whose string form contains a match of the RE2 pattern
// (anchor it with ^ and $ to match whole URLs). It refuses patterns longer
// than MaxPatternLength or compiling to more than MaxPatternInsts
// instructions.
func Regex(pattern string) (Filter, error) {
	re, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	return FilterFunc(func(u *url.URL) bool {
		return re.MatchString(u.String())
	}), nil
}

func compile(pattern string) (*regexp.Regexp, error) {
	if len(pattern) > MaxPatternLength {
		return nil, fmt.Errorf("url filter %q: pattern of %d bytes exceeds %d", clip(pattern), len(pattern), MaxPatternLength)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("url filter %q: %w", clip(pattern), err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("url filter %q: %w", clip(pattern), err)
	}
	if n := len(prog.Inst); n > MaxPatternInsts {
		return nil, fmt.Errorf("url filter %q: compiles to %d instructions, limit %d", clip(pattern), n, MaxPatternInsts)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("url filter %q: %w", clip(pattern), err)
	}
	return re, nil
}

// Regexes builds a task's URL filter: a URL passes when it matches at least
// one of patterns. No patterns means no restriction (All). An error names
// the first pattern that does not compile.
func Regexes(patterns []string) (Filter, error) {
	if len(patterns) == 0 {
		return All, nil
	}
	res := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := compile(p)
		if err != nil {
			return nil, err
		}
		res = append(res, re)
	}
	return FilterFunc(func(u *url.URL) bool {
		s := u.String()
		for _, re := range res {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}), nil
}

// And matches URLs that every filter matches; And() matches everything.
func And(filters ...Filter) Filter {
	return FilterFunc(func(u *url.URL) bool {
		for _, f := range filters {
			if !f.Match(u) {
				return false
			}
		}
		return true
	})
}

// Or matches URLs that at least one filter matches; Or() matches nothing.
func Or(filters ...Filter) Filter {
	return FilterFunc(func(u *url.URL) bool {
		for _, f := range filters {
			if f.Match(u) {
				return true
			}
		}
		return false
	})
}

// Not matches URLs that f does not match.
func Not(f Filter) Filter {
	return FilterFunc(func(u *url.URL) bool { return !f.Match(u) })
}
