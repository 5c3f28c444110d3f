package app

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		prefixes []string
		wantErr  string
	}{
		{name: "host", in: "http://example.com", prefixes: []string{"http://example.com/"}},
		{name: "directory and page", in: "https://example.com/news/today.html\nhttp://a.example/w/\n",
			prefixes: []string{"https://example.com/news/", "http://a.example/w/"}},
		{name: "comments and blanks", in: "# seeds\n\n   \nhttp://x.example/a/b#frag\r\n", prefixes: []string{"http://x.example/a/"}},
		{name: "empty file", in: ""},
		{name: "canonical host", in: "HTTP://Example.COM:80/A/b", prefixes: []string{"http://example.com/A/"}},
		{name: "relative URL", in: "http://ok.example/\n/just/a/path\n", wantErr: "line 2"},
		{name: "other scheme", in: "ftp://example.com/", wantErr: "line 1"},
		{name: "user info dropped", in: "http://user:pw@example.com/", prefixes: []string{"http://example.com/"}},
		{name: "unparsable", in: "http://[::1/", wantErr: "line 1"},
		{name: "too long", in: "http://example.com/" + strings.Repeat("a", 3000), wantErr: "line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seeds, err := ParseSeeds([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseSeeds error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range seeds {
				got = append(got, s.Prefix)
			}
			if strings.Join(got, " ") != strings.Join(tc.prefixes, " ") {
				t.Fatalf("prefixes %q, want %q", got, tc.prefixes)
			}
		})
	}
}

func TestSeedTaskIsStablePerRound(t *testing.T) {
	seeds, err := ParseSeeds([]byte("http://a.example/w/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	p := SeedTasks{MaxDepth: 2, Interval: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b, c := p.Task(seeds[0], 1, t0), p.Task(seeds[0], 1, t0), p.Task(seeds[0], 2, t0)
	ra, _ := a.Encode()
	rb, _ := b.Encode()
	if string(ra) != string(rb) {
		t.Fatal("the same seed and round give different tasks")
	}
	if a.ID == c.ID {
		t.Fatal("two rounds share a task ID")
	}
	if a.Channel != "a.example/w/" || time.Duration(a.Interval) != time.Hour {
		t.Fatalf("task %+v", a)
	}
	re := regexp.MustCompile(a.Filters[0])
	if !re.MatchString("http://a.example/w/x.html") || re.MatchString("http://a.example/other/") {
		t.Fatalf("filter %q does not keep the crawl in its directory", a.Filters[0])
	}
}

func FuzzParseSeeds(f *testing.F) {
	f.Add([]byte("http://example.com/a/b.html\n# c\n\nhttps://x.example"))
	f.Add([]byte("http://[::1]:8080/a%20b/c?d=e#f"))
	f.Add([]byte("https://ex.example/.*+?()[]{}|^$\\/"))
	f.Fuzz(func(t *testing.T, b []byte) {
		seeds, err := ParseSeeds(b)
		if err != nil {
			return
		}
		p := SeedTasks{MaxDepth: 3, Interval: time.Hour}
		for _, s := range seeds {
			tk := p.Task(s, 1, time.Time{})
			if err := tk.Validate(); err != nil {
				t.Fatalf("seed %q gives an invalid task: %v", s.URL, err)
			}
			re, err := regexp.Compile(tk.Filters[0])
			if err != nil {
				t.Fatalf("seed %q gives a bad filter: %v", s.URL, err)
			}
			if !re.MatchString(tk.Seeds[0]) {
				t.Fatalf("filter %q excludes its own seed %q", tk.Filters[0], tk.Seeds[0])
			}
		}
	})
}
