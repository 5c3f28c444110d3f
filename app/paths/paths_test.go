package paths

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	tests := []struct {
		name       string
		home       string
		xdgConfig  string
		xdgData    string
		xdgState   string
		wantConfig string
		wantData   string
		wantState  string
	}{
		{
			name:       "home flag overrides everything",
			home:       filepath.Join(base, "inst1"),
			xdgConfig:  filepath.Join(base, "xc"),
			xdgData:    filepath.Join(base, "xd"),
			xdgState:   filepath.Join(base, "xs"),
			wantConfig: filepath.Join(base, "inst1", "config"),
			wantData:   filepath.Join(base, "inst1", "data"),
			wantState:  filepath.Join(base, "inst1", "state"),
		},
		{
			name:       "XDG variables",
			xdgConfig:  filepath.Join(base, "xc"),
			xdgData:    filepath.Join(base, "xd"),
			xdgState:   filepath.Join(base, "xs"),
			wantConfig: filepath.Join(base, "xc", App),
			wantData:   filepath.Join(base, "xd", App),
			wantState:  filepath.Join(base, "xs", App),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", tt.xdgConfig)
			t.Setenv("XDG_DATA_HOME", tt.xdgData)
			t.Setenv("XDG_STATE_HOME", tt.xdgState)
			d, err := Resolve(tt.home)
			if err != nil {
				t.Fatal(err)
			}
			if d.Config != tt.wantConfig || d.Data != tt.wantData || d.State != tt.wantState || d.LogFile() != filepath.Join(tt.wantState, LogName) {
				t.Errorf("Resolve(%q) = %+v, want config %s data %s state %s", tt.home, d, tt.wantConfig, tt.wantData, tt.wantState)
			}
		})
	}
}

func TestResolveDefaultDataUnderHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	d, err := Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".local", "share", App); d.Data != want {
		t.Errorf("data = %s, want %s", d.Data, want)
	}
	if want := filepath.Join(home, ".local", "state", App); d.State != want {
		t.Errorf("state = %s, want %s", d.State, want)
	}
	if want := filepath.Join(home, ".config", App); d.Config != want {
		t.Errorf("config = %s, want %s", d.Config, want)
	}
}

func TestRelativeXDGDataRefused(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "relative/dir")
	if _, err := Resolve(""); err == nil {
		t.Fatal("relative XDG_DATA_HOME accepted")
	}
}

func TestEnsureAndFiles(t *testing.T) {
	d, err := Resolve(filepath.Join(t.TempDir(), "h"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{d.Config, d.Data} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	if filepath.Dir(d.ConfigFile()) != d.Config || filepath.Dir(d.APIFile()) != d.Config {
		t.Error("config files not in config dir")
	}
	for _, f := range []string{d.QueueFile(), d.LedgerFile(), d.UsageFile()} {
		if filepath.Dir(f) != d.Data {
			t.Errorf("%s not in data dir", f)
		}
	}
}

func TestFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	home := Flag(fs)
	if err := fs.Parse([]string{"--home", "/tmp/h"}); err != nil {
		t.Fatal(err)
	}
	if *home != "/tmp/h" {
		t.Errorf("home = %q", *home)
	}
}
