package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestRunArguments(t *testing.T) {
	badSeeds := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(badSeeds, []byte("ftp://nope/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{name: "unknown flag", args: []string{"--headless", "--bogus"}, want: 2},
		{name: "stray argument", args: []string{"--headless", "extra"}, want: 2},
		{name: "bad seeds file", args: []string{"--headless", "--home", t.TempDir(), "--seeds", badSeeds}, want: 1},
		{name: "missing seeds file", args: []string{"--headless", "--home", t.TempDir(), "--seeds", badSeeds + ".none"}, want: 1},
		{name: "help", args: []string{"-h"}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runClient(context.Background(), tc.args); got != tc.want {
				t.Fatalf("run %q = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}
