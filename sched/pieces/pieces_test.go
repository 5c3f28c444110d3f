package pieces

import (
	"reflect"
	"regexp"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		dirs  map[string]int
		n     int
		share float64
		want  []Piece
	}{
		{"one piece asked", map[string]int{"/a/": 10, "/b/": 10}, 1, 0, nil},
		{"single directory", map[string]int{"/a/": 10}, 3, 0, nil},
		{"empty", nil, 3, 0, nil},
		{
			"two key dirs and rest into two pieces",
			map[string]int{"/news/": 600, "/sport/": 300, "/about/": 40, "/": 60},
			2, 0.9,
			[]Piece{{Dirs: []string{"/news/"}, Pages: 600}, {Dirs: []string{"/", "/about/", "/sport/"}, Pages: 400}},
		},
		{
			"at least n-1 key dirs",
			map[string]int{"/a/": 900, "/b/": 50, "/c/": 30, "/d/": 20},
			3, 0.5,
			// K = 2 (n−1) although /a/ alone holds 90 %: subsets /a/, /b/, rest{/c/,/d/}.
			[]Piece{{Dirs: []string{"/a/"}, Pages: 900}, {Dirs: []string{"/b/"}, Pages: 50}, {Dirs: []string{"/c/", "/d/"}, Pages: 50}},
		},
		{
			"more pieces than subsets",
			map[string]int{"/a/": 70, "/b/": 30},
			5, 0.9,
			[]Piece{{Dirs: []string{"/a/"}, Pages: 70}, {Dirs: []string{"/b/"}, Pages: 30}},
		},
		{
			"balanced assignment",
			map[string]int{"/a/": 40, "/b/": 30, "/c/": 20, "/d/": 10},
			2, 1,
			// LPT: a→0, b→1, c→1 (30<40), d→0: {a,d}=50 and {b,c}=50.
			[]Piece{{Dirs: []string{"/a/", "/d/"}, Pages: 50}, {Dirs: []string{"/b/", "/c/"}, Pages: 50}},
		},
		{"ignores non-positive counts", map[string]int{"/a/": 5, "/b/": 0, "/c/": -3}, 2, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.dirs, tt.n, tt.share)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Split = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Every directory lands in exactly one piece and pages add up.
func TestSplitCoversEveryDirectoryOnce(t *testing.T) {
	dirs := map[string]int{"/": 3}
	for i := range 40 {
		dirs["/d"+string(rune('a'+i%26))+string(rune('a'+i/26))+"/"] = (i*37)%100 + 1
	}
	total := 0
	for _, v := range dirs {
		total += v
	}
	for n := 2; n <= 6; n++ {
		ps := Split(dirs, n, 0)
		if len(ps) != n {
			t.Fatalf("n=%d: %d pieces", n, len(ps))
		}
		seen := map[string]int{}
		sum := 0
		for _, p := range ps {
			sum += p.Pages
			for _, d := range p.Dirs {
				seen[d]++
			}
		}
		if sum != total || len(seen) != len(dirs) {
			t.Fatalf("n=%d: pages %d of %d, dirs %d of %d", n, sum, total, len(seen), len(dirs))
		}
		for d, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: %s in %d pieces", n, d, c)
			}
		}
	}
}

func TestFilters(t *testing.T) {
	fs := Filters("ex.com:8080", Piece{Dirs: []string{"/", "/news/"}})
	tests := []struct {
		url  string
		want bool
	}{
		{"http://ex.com:8080/index.html", true},
		{"https://ex.com:8080/", true},
		{"http://ex.com:8080/news/a/b.html", true},
		{"http://ex.com:8080/sport/a.html", false},
		{"http://exxcom:8080/news/", false},
		{"http://ex.com:8080.evil/news/", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got := false
			for _, f := range fs {
				if regexp.MustCompile(f).MatchString(tt.url) {
					got = true
				}
			}
			if got != tt.want {
				t.Fatalf("match(%s) = %v, want %v (filters %q)", tt.url, got, tt.want, fs)
			}
		})
	}
}
