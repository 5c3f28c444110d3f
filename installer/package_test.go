package installer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testVersion is the version the test packages are built as.
const testVersion = "v9.8.7-test"

var (
	buildOnce sync.Once
	built     string // the output folder
	buildErr  error
	buildLog  []byte
	windows   bool // whether the Windows installer was built
)

// need returns the path of cmd. Outside CI a missing tool skips the test;
// in CI it fails it, since scripts/test.sh installs it.
func need(t *testing.T, cmd, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(cmd)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (Debian package %s; scripts/test.sh installs it)", cmd, pkg)
	}
	t.Skipf("%s is not installed: apt-get install %s", cmd, pkg)
	return ""
}

// packages builds every package once for all tests, with `make package`'s
// script.
func packages(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the packages (about a minute)")
	}
	buildOnce.Do(func() {
		out, err := os.MkdirTemp("", "hivecrawl-dist")
		if err != nil {
			buildErr = err
			return
		}
		built = out
		cmd := exec.Command("../scripts/package.sh")
		cmd.Env = append(os.Environ(), "OUT="+out, "VERSION="+testVersion)
		if _, err := exec.LookPath("makensis"); err == nil {
			windows = true
		} else if os.Getenv("CI") != "true" {
			cmd.Env = append(cmd.Env, "SKIP_WINDOWS=1")
		} else {
			windows = true // the script installs nsis, or fails
		}
		buildLog, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("scripts/package.sh: %v\n%s", buildErr, buildLog)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(built)
	}
	os.Exit(code)
}

func glob(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) != 1 {
		t.Fatalf("%s: found %v (%v)", pattern, m, err)
	}
	return m[0]
}

func TestDebInstallsIntoAThrowawayRoot(t *testing.T) {
	dpkg := need(t, "dpkg", "dpkg")
	out := packages(t)
	deb := glob(t, filepath.Join(out, "hivecrawl_9.8.7.test_*.deb"))

	// An empty dpkg database under a fresh root, and a real install into it.
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for _, f := range []string{"var/lib/dpkg/status", "var/lib/dpkg/available"} {
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	if b, err := exec.Command(dpkg, "--root="+root, "--force-not-root", "--force-script-chrootless", "-i", deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg -i: %v\n%s", err, b)
	}
	list, err := exec.Command(dpkg, "--root="+root, "-L", "hivecrawl").Output()
	if err != nil {
		t.Fatalf("dpkg -L: %v", err)
	}
	for _, f := range []string{"/usr/bin/hivecrawl", "/usr/share/applications/hivecrawl.desktop",
		"/usr/share/icons/hicolor/256x256/apps/hivecrawl.png"} {
		if !strings.Contains(string(list), f+"\n") {
			t.Errorf("package lacks %s:\n%s", f, list)
		}
	}
	// Nothing starts by itself: no root daemon, no service, no autostart
	// entry for every user, no maintainer scripts, nothing in /etc.
	infos, _ := filepath.Glob(filepath.Join(root, "var/lib/dpkg/info/hivecrawl.*"))
	for _, f := range infos {
		switch filepath.Ext(f) {
		case ".preinst", ".postinst", ".prerm", ".postrm", ".conffiles":
			t.Errorf("package has %s", filepath.Base(f))
		}
	}
	for _, f := range []string{"/etc/", "systemd", "init.d"} {
		if strings.Contains(string(list), f) {
			t.Errorf("package installs %s:\n%s", f, list)
		}
	}

	// The installed binary runs.
	v, err := exec.Command(filepath.Join(root, "usr/bin/hivecrawl"), "--version").Output()
	if want := "hivecrawl " + strings.TrimPrefix(testVersion, "v") + " ("; err != nil || !strings.HasPrefix(string(v), want) || !strings.HasSuffix(string(v), ")\n") {
		t.Errorf("installed hivecrawl --version: %q (%v), want %q, the commit and ')'", v, err, want)
	}
	for _, entry := range []string{"usr/share/applications/hivecrawl.desktop"} {
		data, err := os.ReadFile(filepath.Join(root, entry))
		if err != nil || !strings.Contains(string(data), "\nExec=hivecrawl\n") || !strings.Contains(string(data), "\nIcon=hivecrawl\n") {
			t.Errorf("%s: %v\n%s", entry, err, data)
		}
		if v, err := exec.LookPath("desktop-file-validate"); err == nil {
			if b, err := exec.Command(v, filepath.Join(root, entry)).CombinedOutput(); err != nil {
				t.Errorf("desktop-file-validate %s: %v\n%s", entry, err, b)
			}
		}
	}
}

func TestRPM(t *testing.T) {
	file := need(t, "file", "file")
	out := packages(t)
	rpm := glob(t, filepath.Join(out, "hivecrawl-9.8.7.test-1.x86_64.rpm"))
	b, err := exec.Command(file, "-b", rpm).Output()
	if err != nil || !strings.HasPrefix(string(b), "RPM") {
		t.Errorf("file says %q (%v)", b, err)
	}
	if r, err := exec.LookPath("rpm"); err == nil {
		list, err := exec.Command(r, "-qlp", rpm).Output()
		if err != nil || !strings.Contains(string(list), "/usr/bin/hivecrawl\n") {
			t.Errorf("rpm -qlp: %v\n%s", err, list)
		}
	}
}

func TestWindowsInstaller(t *testing.T) {
	file := need(t, "file", "file")
	need(t, "makensis", "nsis")
	out := packages(t)
	if !windows {
		t.Skip("the Windows installer was not built")
	}
	exe := glob(t, filepath.Join(out, "hivecrawl-9.8.7.test-setup.exe"))
	b, err := exec.Command(file, "-b", exe).Output()
	if err != nil || !strings.Contains(string(b), "PE32 executable") || !strings.Contains(string(b), "Nullsoft Installer") {
		t.Errorf("file says %q (%v), want a PE executable made by NSIS", b, err)
	}
	// The program inside is the Windows build, without a console window.
	b, err = exec.Command(file, "-b", filepath.Join(out, "windows-amd64", "hivecrawl.exe")).Output()
	if err != nil || !strings.Contains(string(b), "PE32+ executable (GUI) x86-64") {
		t.Errorf("hivecrawl.exe: file says %q (%v)", b, err)
	}
}
