package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestVersionAndHelp runs a built binary: --version names the semantic
// version and the commit the Go tool recorded, --help goes to stdout, and
// a mistake's usage to stderr with exit code 2.
func TestVersionAndHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	// In a git checkout the commit is recorded; from a source tarball it
	// is "unknown".
	if !regexp.MustCompile(`^hivecrawl \d+\.\d+\.\d+ \(([0-9a-f]{12}(-dirty)?|unknown)\)\n$`).Match(out) || !strings.Contains(string(out), " "+version+" ") {
		t.Errorf("--version printed %q, want hivecrawl %s (commit)", out, version)
	}
	for _, arg := range []string{"--help", "-h", "help"} {
		var stdout, stderr strings.Builder
		cmd := exec.Command(bin, arg)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "usage: hivecrawl <command>") || stderr.Len() != 0 {
			t.Errorf("%s: %v, stdout %q, stderr %q; want the usage on stdout", arg, err, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	cmd := exec.Command(bin, "no-such-command")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "unknown command") {
		t.Errorf("unknown command: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}
