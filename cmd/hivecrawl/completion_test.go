package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionScript writes the script for shell into a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := completionMain([]string{shell}, &out, &errb); code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
	}
	path := filepath.Join(t.TempDir(), "hivecrawl."+shell)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBashCompletion sources the bash script in a real bash and asks it
// to complete command lines, as bash does at a Tab.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	script := completionScript(t, "bash")
	// complete returns what the script offers for the last word of line.
	complete := func(t *testing.T, line ...string) []string {
		t.Helper()
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
			`source "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _hivecrawl && printf '%s\n' "${COMPREPLY[@]}"`,
			"bash", script)
		cmd.Args = append(cmd.Args, line...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		return strings.Fields(string(out))
	}

	var names []string
	for _, c := range listed() {
		names = append(names, c.name)
	}
	for _, tc := range []struct {
		name string
		line []string
		want []string // nil: nothing offered, the shell's default applies
	}{
		{"every command", []string{"hivecrawl", ""}, append(names, "help", "version", "--help", "--version")},
		{"a command by its start", []string{"hivecrawl", "cr"}, []string{"crawl"}},
		{"leave by its start", []string{"hivecrawl", "lea"}, []string{"leave"}},
		{"a flag by its start", []string{"hivecrawl", "crawl", "--max"}, []string{"--max-pages"}},
		{"a one-letter flag", []string{"hivecrawl", "run", "-v"}, []string{"-v"}},
		{"a flag's value is left to the shell", []string{"hivecrawl", "crawl", "--depth", ""}, nil},
		{"the first argument", []string{"hivecrawl", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{"the first argument after a flag and its value", []string{"hivecrawl", "open", "--home", "/tmp/x", "s"}, []string{"settings", "solo"}},
		{"the first argument after a boolean flag", []string{"hivecrawl", "open", "--print", "c"}, []string{"credits"}},
		{"no words after the first argument", []string{"hivecrawl", "seed", "add", ""}, nil},
		{"experiments", []string{"hivecrawl", "sim", ""}, sortedKeys(simExperiments)},
		{"hidden commands are not offered", []string{"hivecrawl", "m"}, []string{"manager"}},
		{"an unknown command gets nothing", []string{"hivecrawl", "nonsense", "--"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := complete(t, tc.line...)
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%q offers %q, want %q", tc.line, got, want)
			}
		})
	}

	// Every command's flags, as the command table declares them.
	for _, c := range listed() {
		if c.flags == nil {
			continue
		}
		t.Run("flags of "+c.name, func(t *testing.T) {
			got := complete(t, "hivecrawl", c.name, "-")
			for _, f := range sortedFlags(c.flags()) {
				if !slices.Contains(got, dashed(f.Name)) {
					t.Errorf("hivecrawl %s - offers %q, lacking %s", c.name, got, dashed(f.Name))
				}
			}
		})
	}
}

// TestZshAndFishCompletion checks the zsh script's syntax and asks fish
// to complete with its script, where those shells are installed.
func TestZshAndFishCompletion(t *testing.T) {
	ran := false
	if zsh, err := exec.LookPath("zsh"); err == nil {
		ran = true
		if out, err := exec.Command(zsh, "-n", completionScript(t, "zsh")).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v\n%s", err, out)
		}
	}
	if fish, err := exec.LookPath("fish"); err == nil {
		ran = true
		out, err := exec.Command(fish, "--no-config", "-c",
			`function hivecrawl; end; source $argv[1]; complete -C "hivecrawl cr"; complete -C "hivecrawl crawl --max"; complete -C "hivecrawl completion "`,
			completionScript(t, "fish")).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		if want := []string{"crawl", "--max-pages", "bash", "fish", "zsh"}; !slices.Equal(got, want) {
			t.Errorf("fish completes %q, want %q\n%s", got, want, out)
		}
	}
	if !ran {
		t.Skip("neither zsh nor fish is installed")
	}
}

func TestCompletionArguments(t *testing.T) {
	for _, args := range [][]string{nil, {"tcsh"}, {"bash", "zsh"}} {
		var out, errb bytes.Buffer
		if code := completionMain(args, &out, &errb); code != 2 || out.Len() != 0 || errb.Len() == 0 {
			t.Errorf("completion %q: exit %d, stdout %q, stderr %q; want a mistake", args, code, out.String(), errb.String())
		}
	}
	if code := completionMain([]string{"zsh"}, io.Discard, io.Discard); code != 0 {
		t.Errorf("completion zsh: exit %d", code)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
