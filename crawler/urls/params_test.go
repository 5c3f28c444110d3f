package urls

import (
	"strings"
	"testing"
)

func TestCanonicalDropsTrackingParams(t *testing.T) {
	tests := []struct{ name, ref, want string }{
		{name: "utm parameters", ref: "http://example.com/a?utm_source=feed&utm_medium=rss&utm_campaign=x", want: "http://example.com/a"},
		{name: "any utm_ name", ref: "http://example.com/a?utm_whatever=1", want: "http://example.com/a"},
		{name: "order of the rest kept", ref: "http://example.com/a?b=2&utm_source=x&a=1", want: "http://example.com/a?b=2&a=1"},
		{name: "first dropped", ref: "http://example.com/a?fbclid=IwAR0&id=7", want: "http://example.com/a?id=7"},
		{name: "last dropped", ref: "http://example.com/a?id=7&gclid=Cj0", want: "http://example.com/a?id=7"},
		{name: "case-insensitive", ref: "http://example.com/a?UTM_Source=x&FBCLID=y&PHPSESSID=z", want: "http://example.com/a"},
		{name: "name without value", ref: "http://example.com/a?fbclid&x", want: "http://example.com/a?x"},
		{name: "empty value", ref: "http://example.com/a?msclkid=&x=1", want: "http://example.com/a?x=1"},
		{name: "escaped name", ref: "http://example.com/a?%75tm%5Fsource=x&q=1", want: "http://example.com/a?q=1"},
		{name: "click ids", ref: "http://example.com/?dclid=1&gbraid=2&wbraid=3&yclid=4&igshid=5&ref_src=6&k=v", want: "http://example.com/?k=v"},
		{name: "mailchimp and google analytics", ref: "http://example.com/?mc_cid=1&mc_eid=2&_ga=3&_gl=4", want: "http://example.com/"},
		{name: "session ids", ref: "http://example.com/?jsessionid=1&sessionid=2&session_id=3&cfid=4&cftoken=5", want: "http://example.com/"},
		{name: "asp session id", ref: "http://example.com/?ASPSESSIONIDQASDRTCB=ABCDEF&x=1", want: "http://example.com/?x=1"},
		{name: "jsessionid path parameter", ref: "http://example.com/cart.jsp;jsessionid=0A1B2C3D?item=9", want: "http://example.com/cart.jsp?item=9"},
		{name: "jsessionid path parameter upper case", ref: "http://example.com/a;JSESSIONID=0A1B/b", want: "http://example.com/a/b"},
		{name: "other path parameters kept", ref: "http://example.com/a;v=1;jsessionid=x;w=2", want: "http://example.com/a;v=1;w=2"},
		{name: "jsessionid leaving a dot segment kept", ref: "http://example.com/.;jsessionid=x/b", want: "http://example.com/.;jsessionid=x/b"},
		{name: "two jsessionids leaving a dot segment kept", ref: "http://example.com/.;jsessionid=x;jsessionid=y/b", want: "http://example.com/.;jsessionid=x;jsessionid=y/b"},
		{name: "sid session token", ref: "http://example.com/?sid=9f86d081884c7d659a2feaa0c55ad015&p=1", want: "http://example.com/?p=1"},
		{name: "sid short kept", ref: "http://example.com/?sid=42", want: "http://example.com/?sid=42"},
		{name: "sid slug kept", ref: "http://example.com/?sid=introduction-to-algebra-2", want: "http://example.com/?sid=introduction-to-algebra-2"},
		{name: "sid long word kept", ref: "http://example.com/?sid=internationalisation", want: "http://example.com/?sid=internationalisation"},
		{name: "sid long number kept", ref: "http://example.com/?sid=12345678901234567890", want: "http://example.com/?sid=12345678901234567890"},
		{name: "content parameters kept", ref: "http://example.com/?s=river&id=3&page=2&q=x&ref=home&session=4", want: "http://example.com/?s=river&id=3&page=2&q=x&ref=home&session=4"},
		{name: "prefix of a name kept", ref: "http://example.com/?utm=1&gclid2=x&my_utm_source=y", want: "http://example.com/?utm=1&gclid2=x&my_utm_source=y"},
		{name: "in a value kept", ref: "http://example.com/?next=%2F%3Futm_source%3Dx", want: "http://example.com/?next=%2F%3Futm_source%3Dx"},
		{name: "empty query kept", ref: "http://example.com/a?", want: "http://example.com/a?"},
		{name: "only empty parameters left", ref: "http://example.com/a?&utm_source=x", want: "http://example.com/a"},
		{name: "empty parameters kept", ref: "http://example.com/a?x=1&&utm_source=x&", want: "http://example.com/a?x=1&&"},
		{name: "fragment and tracking", ref: "http://example.com/a?utm_source=x#top", want: "http://example.com/a"},
	}
	r, err := NewResolver(mustParse(t, "http://example.com/dir/page.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.ref, nil)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.ref, err)
			}
			if got.String() != tc.want {
				t.Errorf("Canonical(%q) = %q, want %q", tc.ref, got, tc.want)
			}
			// The same link on a page of the site, by whichever path
			// the resolver takes.
			rel := strings.TrimPrefix(tc.ref, "http://example.com")
			if got, err := r.Resolve(rel); err != nil || got.String() != tc.want {
				t.Errorf("Resolve(%q) = %v (%v), want %q", rel, got, err, tc.want)
			}
		})
	}
}

func TestResolveQueryOnlyRefAgainstTrackedBase(t *testing.T) {
	r, err := NewResolver(mustParse(t, "http://example.com/a;jsessionid=AB12?utm_source=x"))
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"":           "http://example.com/a",
		"?page=2":    "http://example.com/a?page=2",
		"b?fbclid=1": "http://example.com/b",
	} {
		if got, err := r.Resolve(ref); err != nil || got.String() != want {
			t.Errorf("Resolve(%q) = %v (%v), want %q", ref, got, err, want)
		}
	}
}

func TestStripQueryDoesNotAllocateWhenNothingDrops(t *testing.T) {
	q := "q=river&page=2&sid=42&id=7"
	allocs := testing.AllocsPerRun(100, func() {
		if _, changed := stripQuery(q); changed {
			t.Fatal("changed")
		}
		if p := stripPathSession("/a;v=1/b"); p != "/a;v=1/b" {
			t.Fatal("path changed")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}

// FuzzStripParams checks that the removal keeps every other parameter in
// order, leaves none of the listed ones and is idempotent.
func FuzzStripParams(f *testing.F) {
	for _, s := range [][2]string{
		{"/a", "utm_source=x&b=1"},
		{"/a;jsessionid=1/b;JSESSIONID=2", "&&fbclid&"},
		{"/.;jsessionid=x/..;jsessionid=y", "sid=0123456789abcdef0&s=1"},
		{"/a/.;jsessionid=x;jsessionid=y/", ""},
		{"/%2e;jsessionid=", "ASPSESSIONIDX=1&_ga=2&_gl"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, query string) {
		p, q, hq := stripParams(path, query, true)
		if len(p) > len(path) || len(q) > len(query) {
			t.Fatalf("(%q, %q) grew to (%q, %q)", path, query, p, q)
		}
		if !hq && q != "" {
			t.Fatalf("query %q left without '?'", q)
		}
		var kept []string
		for param := range strings.SplitSeq(query, "&") {
			if !dropParam(param) {
				kept = append(kept, param)
			}
		}
		want := strings.Join(kept, "&")
		if want != q && !(want == "" && !hq) {
			t.Fatalf("query %q stripped to %q, want %q", query, q, want)
		}
		if q == query && !hq && query != "" {
			t.Fatalf("query %q kept but '?' dropped", query)
		}
		in, out := strings.Split(path, "/"), strings.Split(p, "/")
		if len(in) != len(out) {
			t.Fatalf("path %q stripped to %q: segments added or removed", path, p)
		}
		for i := range out {
			if isDotSegment(out[i]) && !isDotSegment(in[i]) {
				t.Fatalf("path %q stripped to %q: dot segment made", path, p)
			}
		}
		p2, q2, hq2 := stripParams(p, q, hq)
		if p2 != p || q2 != q || hq2 != hq {
			t.Fatalf("not idempotent: (%q, %q, %v) -> (%q, %q, %v)", p, q, hq, p2, q2, hq2)
		}
	})
}
