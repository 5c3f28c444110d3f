package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestVersionAndHelp runs a built binary: --version names the semantic
// version and the commit the Go tool recorded, --help goes to stdout, and
// a mistake's usage to stderr with exit code 2; so do every command's.
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
	for name, c := range commands {
		t.Run(name, func(t *testing.T) { checkCommandHelp(t, bin, c) })
	}
}

// checkCommandHelp checks that -h and --help print c's usage, with every
// flag it declares, on stdout with exit code 0, and that a flag it does
// not know is one line on stderr with exit code 2.
func checkCommandHelp(t *testing.T, bin string, c command) {
	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errb strings.Builder
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "XDG_DATA_HOME=")
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	for _, arg := range []string{"-h", "--help"} {
		code, out, errs := run(c.name, arg)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: hivecrawl "+c.name) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want the usage on stdout", c.name, arg, code, out, errs)
			continue
		}
		if c.flags == nil {
			continue
		}
		for _, f := range sortedFlags(c.flags()) {
			if !strings.Contains(out, "\n  "+dashed(f.Name)) {
				t.Errorf("%s %s does not list %s:\n%s", c.name, arg, dashed(f.Name), out)
			}
		}
	}
	code, out, errs := run(c.name, "--no-such-flag")
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no-such-flag") {
		t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q; want one line on stderr, exit 2", c.name, code, out, errs)
	}
}
