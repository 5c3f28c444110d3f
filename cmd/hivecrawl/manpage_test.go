package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPage checks that hivecrawl(1) has its sections, every command and
// every flag, and that man renders it without a warning, as lintian asks.
func TestManPage(t *testing.T) {
	var page bytes.Buffer
	writeManPage(&page)
	src := page.String()
	for _, sh := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "FILES", "ENVIRONMENT", `"EXIT STATUS"`, `"SEE ALSO"`} {
		want := ".SH " + strings.Trim(sh, `"`) + "\n"
		if !strings.Contains(src, want) {
			t.Errorf("no section %s", sh)
		}
	}
	if strings.ContainsFunc(src, func(r rune) bool { return r > 127 }) {
		t.Error("the page is not plain ASCII")
	}

	man, err := exec.LookPath("man")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("man is not installed (Debian package man-db; scripts/test.sh installs it)")
		}
		t.Skip("man is not installed: apt-get install man-db")
	}
	file := filepath.Join(t.TempDir(), "hivecrawl.1")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// lintian's check: any message on stderr is a fault of the page.
	cmd := exec.Command(man, "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", file)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("man --warnings: %v\n%s", err, stderr.String())
	}

	cmd = exec.Command(man, "-l", file)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "MANWIDTH=80", "MAN_KEEP_FORMATTING=", "MANPAGER=cat", "PAGER=cat")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man -l: %v", err)
	}
	// Debian's groff writes \- as U+2212 in UTF-8; the flags are typed with
	// ASCII hyphens.
	text := strings.ReplaceAll(string(out), "\u2212", "-")
	for _, c := range listed() {
		if !strings.Contains(text, "\n   "+c.name+"\n") {
			t.Errorf("no heading for the command %s", c.name)
		}
		if !strings.Contains(text, "hivecrawl "+c.name) {
			t.Errorf("no usage line for the command %s", c.name)
		}
		if c.flags == nil {
			continue
		}
		for _, f := range sortedFlags(c.flags()) {
			if !strings.Contains(text, "\n       "+dashed(f.Name)) {
				t.Errorf("%s: no flag %s", c.name, dashed(f.Name))
			}
		}
	}
	for _, f := range manFiles() {
		if !strings.Contains(text, f[0]) {
			t.Errorf("FILES lacks %s", f[0])
		}
	}
}

func TestRoffText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--home DIR", `\-\-home DIR`},
		{`a\b`, `a\eb`},
		{".hidden", `\&.hidden`},
		{"'quoted'", `\&'quoted'`},
		{"2 × 3", `2 \[u00D7] 3`},
	} {
		if got := roffText(tc.in); got != tc.want {
			t.Errorf("roffText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
