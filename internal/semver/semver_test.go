package semver

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     Version
		bad      bool
	}{
		{name: "release", in: "0.2.0", want: Version{0, 2, 0, ""}},
		{name: "leading v", in: "v1.4.2", want: Version{1, 4, 2, ""}},
		{name: "pre-release", in: "1.0.0-rc.1", want: Version{1, 0, 0, "rc.1"}},
		{name: "build metadata ignored", in: "1.0.0+3f2a9c", want: Version{1, 0, 0, ""}},
		{name: "two parts", in: "1.2", bad: true},
		{name: "four parts", in: "1.2.3.4", bad: true},
		{name: "leading zero", in: "01.2.3", bad: true},
		{name: "letters", in: "1.x.3", bad: true},
		{name: "empty", in: "", bad: true},
		{name: "dev", in: "dev", bad: true},
		{name: "empty pre-release", in: "1.2.3-", bad: true},
		{name: "negative", in: "-1.2.3", bad: true},
		{name: "overflow", in: "99999999999999999999.0.0", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("Parse(%q) = %v, %v; want ErrMalformed", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	// Each is older than the next (SemVer 2.0.0 §11's example and more).
	order := []string{"0.1.9", "0.2.0", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
		"1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "2.0.0"}
	for i := range order {
		for j := range order {
			a, b := mustParse(t, order[i]), mustParse(t, order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s vs %s = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestOlder(t *testing.T) {
	min := mustParse(t, "0.3.0")
	tests := []struct {
		in   string
		want bool
	}{{"0.2.9", true}, {"0.3.0-rc.1", true}, {"0.3.0", false}, {"v0.3.0", false}, {"1.0.0", false}, {"dev", true}, {"", true}}
	for _, tt := range tests {
		if got := Older(tt.in, min); got != tt.want {
			t.Errorf("Older(%q, %s) = %v, want %v", tt.in, min, got, tt.want)
		}
	}
}

func mustParse(t *testing.T, s string) Version {
	t.Helper()
	v, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzParse checks that whatever parses formats back to a version that
// parses to the same value and compares equal to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.2.0", "v1.0.0-rc.1+x", "1.2", "01.0.0", "1.0.0-a.b.01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		w, err := Parse(v.String())
		if err != nil || w != v || v.Compare(w) != 0 {
			t.Fatalf("%q parsed to %v, which reparses to %v, %v", s, v, w, err)
		}
	})
}
