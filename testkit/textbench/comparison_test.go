package textbench

import (
	"errors"
	"reflect"
	"testing"
)

const sampleData = `package main

type ComparisonEntry struct{ File string; With, Without []string }

var other = map[string]ComparisonEntry{"http://x/": {File: "not-this.html"}}

var comparisonData = map[string]ComparisonEntry{
	"https://b.example/2": {
		File:    "b.html",
		Title:   "ignored",
		With:    []string{"b one", ` + "`b two`" + `},
		Without: []string{"b menu"},
	},
	"https://a.example/1": {
		File: "a.html",
		With: []string{"a \"quoted\""},
	},
	"https://c.example/": {
		File: "../outside.html",
		With: []string{"never"},
	},
	"https://d.example/": {
		Title: "no file",
	},
}
`

func TestParseComparisonData(t *testing.T) {
	got, err := ParseComparisonData([]byte(sampleData))
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Name: "a.html", URL: "https://a.example/1", With: []string{`a "quoted"`}},
		{Name: "b.html", URL: "https://b.example/2", With: []string{"b one", "b two"}, Without: []string{"b menu"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := ParseComparisonData([]byte("package main\nvar x = 1\n")); err == nil {
		t.Error("no error for a file without comparisonData")
	}
	if _, err := ParseComparisonData([]byte("not go")); err == nil {
		t.Error("no error for a file that is not Go")
	}
}

// TestLoadComparison reads the real set when the module cache has it.
func TestLoadComparison(t *testing.T) {
	dir, err := ComparisonDir()
	if errors.Is(err, ErrNoComparison) {
		t.Skipf("go-trafilatura's comparison set is not here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cases, err := LoadComparison(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 983 {
		t.Errorf("%d cases, want 983 (go-trafilatura v1.12.2's set)", len(cases))
	}
	for _, c := range cases {
		if len(c.HTML) == 0 || len(c.With) == 0 {
			t.Fatalf("case %s has no page or no expected text", c.Name)
		}
	}
}

func FuzzParseComparisonData(f *testing.F) {
	f.Add([]byte(sampleData))
	f.Add([]byte("package main\nvar comparisonData = map[string]E{1: {File: 2}, \"u\": {With: x}}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cases, err := ParseComparisonData(src)
		if err != nil {
			return
		}
		for _, c := range cases {
			if c.Name == "" || c.Name == "." || c.Name == ".." {
				t.Fatalf("case with unusable file name %q", c.Name)
			}
		}
	})
}
