package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestHelpHidesTestFlags lists the flags `run --help` and `manager
// --help` show: the user's, not those that tests, the demo and benchmarks
// pass, which are still accepted.
func TestHelpHidesTestFlags(t *testing.T) {
	shown := func(name string, fs *flag.FlagSet) []string {
		var b bytes.Buffer
		writeUsage(&b, commands[name], fs)
		var out []string
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(line, "  -") {
				out = append(out, strings.Fields(line)[0])
			}
		}
		return out
	}
	var o runOptions
	fs := runFlags(&o)
	want := []string{"--delay", "--headless", "--home", "--listen", "--local", "--seed-depth", "--seed-interval", "--seed-pages", "--seeds", "--threads", "-v"}
	if got := shown("run", fs); !slices.Equal(got, want) {
		t.Errorf("run --help shows %v, want %v", got, want)
	}
	err := fs.Parse([]string{"--bind", "127.0.0.2", "--emulate", "layout.json", "--heartbeat", "1s", "--no-lbi",
		"--allow-loopback", "--allow-test-nets", "--normal-priority"})
	if err != nil || o.bind != "127.0.0.2" || o.emulateFile != "layout.json" || o.heartbeat != time.Second || !o.noLBI ||
		!o.allowLoopback || !o.allowTestNets || !o.normalPriority {
		t.Errorf("hidden run flags not taken: %v, %+v", err, o)
	}
	// The installed program has no dishonest volunteer at all, hidden or
	// not: only a build with the test kit's (-tags adversary) does.
	for _, f := range []string{"cheat", "cheat-pair", "hijack"} {
		if got := fs.Lookup(f) != nil; got != adversaryBuilt {
			t.Errorf("run has a --%s flag: %v, want %v", f, got, adversaryBuilt)
		}
	}
	if a, err := o.adversary(); a != nil || err != nil {
		t.Errorf("run's adversary without its flags = %v, %v; want none", a, err)
	}
	for _, f := range shown("manager", managerFlags(new(managerOptions))) {
		if strings.HasPrefix(f, "--allow-") {
			t.Errorf("manager --help shows %s", f)
		}
	}
	var page bytes.Buffer
	writeManPage(&page)
	for _, f := range []string{`\-\-cheat\fR`, `\-\-cheat\-pair\fR`, `\-\-no\-lbi\fR`, `\-\-allow\-test\-nets\fR`, `\-\-emulate\fR`} {
		if strings.Contains(page.String(), f) {
			t.Errorf("the man page shows %s", f)
		}
	}
}

// TestDemoNeedsTheAdversaryBuild: the installed program's demo refuses
// --cheaters and --hijackers with what to build instead, since it
// carries no dishonest volunteer; a build with the test kit's runs them.
func TestDemoNeedsTheAdversaryBuild(t *testing.T) {
	for _, args := range [][]string{{"--cheaters", "2"}, {"--hijackers", "1"}} {
		var f demoFlags
		fs := demoFlagSet(&f)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		err := checkDemo(f, fs)
		if adversaryBuilt {
			if err != nil {
				t.Errorf("demo %v: %v", args, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "-tags adversary") {
			t.Errorf("demo %v = %v; want a refusal that names the build with the test kit", args, err)
		}
	}
	var f demoFlags
	fs := demoFlagSet(&f)
	if err := fs.Parse(nil); err != nil || checkDemo(f, fs) != nil {
		t.Errorf("demo without attackers refused: %v, %v", err, checkDemo(f, fs))
	}
}
