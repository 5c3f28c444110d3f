//go:build !windows && !darwin

package autostart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExecLine(t *testing.T) {
	cases := []struct {
		name string
		exe  string
		args []string
		want string
	}{
		{"plain", "/usr/bin/hivecrawl", nil, "/usr/bin/hivecrawl"},
		{"space", "/home/a b/hivecrawl", nil, `"/home/a b/hivecrawl"`},
		{"reserved", "/opt/$x/hc", []string{`a"b`, "50%"}, `"/opt/\$x/hc" "a\"b" 50%%`},
		{"backslash and backtick", "/x", []string{"a\\b`c"}, "/x \"a\\\\b\\`c\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := execLine(c.exe, c.args); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestSetAndEnabled(t *testing.T) {
	cfg := t.TempDir()
	sys := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_CONFIG_DIRS", sys)
	e := Entry{Exe: "/usr/bin/hivecrawl"}
	if e.Path() != filepath.Join(cfg, "autostart", "hivecrawl.desktop") {
		t.Fatalf("path %s", e.Path())
	}
	steps := []struct {
		name   string
		do     func() error
		wantOn bool
	}{
		{"nothing installed", func() error { return nil }, false},
		{"package's system-wide entry", func() error {
			os.MkdirAll(filepath.Join(sys, "autostart"), 0o755)
			return os.WriteFile(filepath.Join(sys, "autostart", "hivecrawl.desktop"), DesktopEntry("/usr/bin/hivecrawl", nil, false), 0o644)
		}, true},
		{"turned off overrides it", func() error { return e.Set(false) }, false},
		{"turned on", func() error { return e.Set(true) }, true},
		{"off again", func() error { return e.Set(false) }, false},
		{"system entry gone, user entry decides", func() error { return os.Remove(filepath.Join(sys, "autostart", "hivecrawl.desktop")) }, false},
		{"on without a system entry", func() error { return e.Set(true) }, true},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		on, err := e.Enabled()
		if err != nil || on != s.wantOn {
			t.Errorf("%s: enabled %v (%v), want %v", s.name, on, err, s.wantOn)
		}
	}
	if fi, err := os.Stat(e.Path()); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o644 {
		t.Errorf("entry mode %v, want 0644", fi.Mode().Perm())
	}
	if left, _ := os.ReadDir(filepath.Dir(e.Path())); len(left) != 1 {
		t.Errorf("%d files beside the entry, want none (no temporary file left)", len(left)-1)
	}
	data, _ := os.ReadFile(e.Path())
	for _, want := range []string{"[Desktop Entry]", "Type=Application", "Exec=/usr/bin/hivecrawl\n", "Icon=hivecrawl"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("entry lacks %q:\n%s", want, data)
		}
	}
}

func TestHidden(t *testing.T) {
	cases := []struct {
		name string
		data string
		want bool
	}{
		{"plain", "[Desktop Entry]\nExec=x\n", false},
		{"hidden", "[Desktop Entry]\nHidden=true\n", true},
		{"gnome off", "[Desktop Entry]\nX-GNOME-Autostart-enabled=false\n", true},
		{"other group", "[Desktop Action x]\nHidden=true\n[Desktop Entry]\nExec=x\n", false},
		{"spaces", "[Desktop Entry]\nHidden = true\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hidden([]byte(c.data)); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func FuzzHidden(f *testing.F) {
	f.Add([]byte("[Desktop Entry]\nHidden=true\n"))
	f.Add([]byte("[Desktop Entry]\nX-GNOME-Autostart-enabled=false"))
	f.Add([]byte("\x00[\n=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hidden(data)
		// An entry that starts hidden is hidden whatever follows.
		if !hidden(append([]byte("[Desktop Entry]\nHidden=true\n"), data...)) {
			t.Fatalf("Hidden=true not seen before %q", data)
		}
	})
}
