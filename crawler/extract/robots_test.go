package extract

import (
	"strings"
	"testing"
)

func TestRobotsTag(t *testing.T) {
	tests := []struct {
		name              string
		values            []string
		ua                string
		noindex, nofollow bool
	}{
		{name: "no header"},
		{name: "noindex", values: []string{"noindex"}, noindex: true},
		{name: "nofollow any case", values: []string{"NoFollow"}, nofollow: true},
		{name: "none", values: []string{"none"}, noindex: true, nofollow: true},
		{name: "list", values: []string{"noarchive, noindex , nosnippet"}, noindex: true},
		{name: "several headers", values: []string{"noindex", "nofollow"}, noindex: true, nofollow: true},
		{name: "other crawler only", values: []string{"googlebot: noindex, nofollow"}, ua: "hivecrawl"},
		{name: "our crawler", values: []string{"hivecrawl: noindex"}, ua: "hivecrawl", noindex: true},
		{name: "our crawler case-insensitive", values: []string{"HiveCrawl: none"}, ua: "hivecrawl", noindex: true, nofollow: true},
		{name: "scoped then ours", values: []string{"googlebot: nofollow, hivecrawl: noindex"}, ua: "hivecrawl", noindex: true},
		{name: "ours then scoped", values: []string{"hivecrawl: noindex, googlebot: nofollow"}, ua: "hivecrawl", noindex: true},
		{name: "scope ends with the header", values: []string{"googlebot: noindex", "nofollow"}, ua: "hivecrawl", nofollow: true},
		{name: "unavailable_after with commas and colons", values: []string{"unavailable_after: Wednesday, 03-Nov-2027 15:00:00 GMT, noindex"}, ua: "hivecrawl", noindex: true},
		{name: "max-snippet is not a crawler", values: []string{"max-snippet: 20, nofollow"}, ua: "hivecrawl", nofollow: true},
		{name: "index follow", values: []string{"all", "index, follow"}},
		{name: "empty and junk", values: []string{"", ",,,", ":", "x:y:z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni, nf := RobotsTag(tc.values, tc.ua)
			if ni != tc.noindex || nf != tc.nofollow {
				t.Errorf("RobotsTag(%q, %q) = %v, %v; want %v, %v", tc.values, tc.ua, ni, nf, tc.noindex, tc.nofollow)
			}
		})
	}
}

func FuzzRobotsTag(f *testing.F) {
	for _, s := range []string{"noindex", "googlebot: none", "hivecrawl: nofollow, noindex", "unavailable_after: 1 Jan 2030 00:00:00 GMT", "max-image-preview: large", ":,:,"} {
		f.Add(s, "hivecrawl")
	}
	f.Fuzz(func(t *testing.T, value, ua string) {
		ni, nf := RobotsTag([]string{value}, ua)
		// Splitting a value into its comma-separated items, each in its own
		// header, can only lose a crawler prefix's scope, never add a
		// directive that the header did not contain.
		if ni && !containsFold(value, "noindex") && !containsFold(value, "none") {
			t.Fatalf("noindex from %q", value)
		}
		if nf && !containsFold(value, "nofollow") && !containsFold(value, "none") {
			t.Fatalf("nofollow from %q", value)
		}
		// Repeating a header changes nothing.
		if ni2, nf2 := RobotsTag([]string{value, value}, ua); ni2 != ni || nf2 != nf {
			t.Fatalf("repeated header %q changed the result", value)
		}
	})
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}
