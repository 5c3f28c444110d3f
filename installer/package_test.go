package installer

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

	installOnce sync.Once
	installed   string // the throwaway root the .deb is installed into
	installErr  error
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
// script. The Windows installer's files are stored uncompressed: the tests
// look at what it is, and LZMA took most of the build's time.
func packages(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the packages (about half a minute)")
	}
	buildOnce.Do(func() {
		out, err := os.MkdirTemp("", "hivecrawl-dist")
		if err != nil {
			buildErr = err
			return
		}
		built = out
		cmd := exec.Command("../scripts/package.sh")
		cmd.Env = append(os.Environ(), "OUT="+out, "VERSION="+testVersion, "NSIS_FAST=1")
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

// installedRoot installs the .deb once, for real, into a throwaway root
// with an empty dpkg database, and returns the root.
func installedRoot(t *testing.T) string {
	t.Helper()
	dpkg := need(t, "dpkg", "dpkg")
	out := packages(t)
	deb := glob(t, filepath.Join(out, "hivecrawl_9.8.7.test_*.deb"))
	installOnce.Do(func() {
		root := filepath.Join(out, "root")
		for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		for _, f := range []string{"var/lib/dpkg/status", "var/lib/dpkg/available"} {
			os.WriteFile(filepath.Join(root, f), nil, 0o644)
		}
		if b, err := exec.Command(dpkg, "--root="+root, "--force-not-root", "--force-script-chrootless", "-i", deb).CombinedOutput(); err != nil {
			installErr = fmt.Errorf("dpkg -i: %v\n%s", err, b)
			return
		}
		installed = root
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	return installed
}

func TestDebInstallsIntoAThrowawayRoot(t *testing.T) {
	root := installedRoot(t)
	b, err := exec.Command("dpkg", "--root="+root, "-L", "hivecrawl").Output()
	if err != nil {
		t.Fatalf("dpkg -L: %v", err)
	}
	list := string(b)
	for _, f := range []string{
		"/usr/bin/hivecrawl",
		"/usr/share/applications/hivecrawl.desktop",
		"/usr/share/icons/hicolor/256x256/apps/hivecrawl.png",
		"/usr/lib/systemd/user/hivecrawl.service",
		"/usr/share/man/man1/hivecrawl.1.gz",
		"/usr/share/bash-completion/completions/hivecrawl",
		"/usr/share/zsh/vendor-completions/_hivecrawl",
		"/usr/share/fish/vendor_completions.d/hivecrawl.fish",
		"/usr/share/doc/hivecrawl/copyright",
		"/usr/share/doc/hivecrawl/changelog.gz",
	} {
		if !strings.Contains(list, f+"\n") {
			t.Errorf("package lacks %s:\n%s", f, list)
		}
	}
	// Nothing starts by itself: no autostart entry for every user, no
	// system service, no unit enabled, no maintainer scripts, nothing in
	// /etc.
	for _, f := range []string{"/etc/", "/lib/systemd/system", "/usr/lib/systemd/system", "init.d", ".wants/"} {
		if strings.Contains(list, f) {
			t.Errorf("package installs %s:\n%s", f, list)
		}
	}
	infos, _ := filepath.Glob(filepath.Join(root, "var/lib/dpkg/info/hivecrawl.*"))
	for _, f := range infos {
		switch filepath.Ext(f) {
		case ".preinst", ".postinst", ".prerm", ".postrm", ".conffiles":
			t.Errorf("package has %s", filepath.Base(f))
		}
	}

	// The installed binary runs.
	v, err := exec.Command(filepath.Join(root, "usr/bin/hivecrawl"), "--version").Output()
	if want := "hivecrawl " + strings.TrimPrefix(testVersion, "v") + " ("; err != nil || !strings.HasPrefix(string(v), want) || !strings.HasSuffix(string(v), ")\n") {
		t.Errorf("installed hivecrawl --version: %q (%v), want %q, the commit and ')'", v, err, want)
	}
	entry := filepath.Join(root, "usr/share/applications/hivecrawl.desktop")
	data, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(data), "\nExec=hivecrawl\n") || !strings.Contains(string(data), "\nIcon=hivecrawl\n") {
		t.Errorf("%s: %v\n%s", entry, err, data)
	}
	if v, err := exec.LookPath("desktop-file-validate"); err == nil {
		if b, err := exec.Command(v, entry).CombinedOutput(); err != nil {
			t.Errorf("desktop-file-validate %s: %v\n%s", entry, err, b)
		}
	}
}

// TestSystemdUserUnit checks the user unit: systemd accepts it, and what
// it starts is a command of the installed hivecrawl with flags it has.
func TestSystemdUserUnit(t *testing.T) {
	root := installedRoot(t)
	path := filepath.Join(root, "usr/lib/systemd/user/hivecrawl.service")
	unit, err := readUnit(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][3]string{
		{"Service", "Restart", "on-failure"},
		{"Service", "Nice", "19"},
		{"Service", "CPUSchedulingPolicy", "idle"},
		{"Service", "IOSchedulingClass", "idle"},
		{"Install", "WantedBy", "default.target"},
	} {
		if got := unit[kv[0]][kv[1]]; got != kv[2] {
			t.Errorf("[%s] %s=%q, want %q", kv[0], kv[1], got, kv[2])
		}
	}
	exec0 := strings.Fields(unit["Service"]["ExecStart"])
	if len(exec0) < 2 || exec0[0] != "/usr/bin/hivecrawl" {
		t.Fatalf("ExecStart=%q: want /usr/bin/hivecrawl and a command", unit["Service"]["ExecStart"])
	}
	// The command and its flags exist: they parse, up to --help.
	var stdout, stderr strings.Builder
	cmd := exec.Command(filepath.Join(root, exec0[0]), append(exec0[1:], "--help")...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.HasPrefix(stdout.String(), "usage: hivecrawl "+exec0[1]) {
		t.Errorf("hivecrawl %s --help: %v\nstdout: %s\nstderr: %s", strings.Join(exec0[1:], " "), err, stdout.String(), stderr.String())
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze is not installed: the unit was read, not verified by systemd")
		return
	}
	// systemd-analyze checks that ExecStart is there: point it at the root.
	data, _ := os.ReadFile(path)
	dir := t.TempDir()
	verified := filepath.Join(dir, "hivecrawl.service")
	os.WriteFile(verified, []byte(strings.ReplaceAll(string(data), "=/usr/bin/", "="+root+"/usr/bin/")), 0o644)
	run := t.TempDir()
	cmd = exec.Command(analyze, "--user", "--man=no", "verify", verified)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+run)
	out, err := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("Failed to initialize manager")) {
		t.Logf("systemd-analyze cannot run here, the unit was read, not verified by systemd: %s", out)
		return
	}
	// verify exits 0 after some complaints: any output is one.
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze --user verify: %v\n%s", err, out)
	}
}

// readUnit reads a systemd unit file's sections and keys (the last value
// of a key repeated).
func readUnit(path string) (map[string]map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	unit := map[string]map[string]string{}
	section := ""
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			unit[section] = map[string]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				return nil, fmt.Errorf("%s:%d: not a key=value in a section: %q", path, i+1, line)
			}
			unit[section][strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return unit, nil
}

// TestInstalledManPageAndCompletion reads the installed manual page with
// man, as lintian does, and completes a command with the installed bash
// script.
func TestInstalledManPageAndCompletion(t *testing.T) {
	root := installedRoot(t)
	if man, err := exec.LookPath("man"); err == nil {
		cmd := exec.Command(man, "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", filepath.Join(root, "usr/share/man/man1/hivecrawl.1.gz"))
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 || stdout.Len() == 0 {
			t.Errorf("man --warnings on the installed page: %v, %d bytes\n%s", err, stdout.Len(), stderr.String())
		}
	} else {
		t.Log("man is not installed: the manual page is not read")
	}
	bash := need(t, "bash", "bash")
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c",
		`source "$1" && COMP_WORDS=(hivecrawl compl) && COMP_CWORD=1 && _hivecrawl && echo "${COMPREPLY[@]}"`,
		"bash", filepath.Join(root, "usr/share/bash-completion/completions/hivecrawl")).CombinedOutput()
	if err != nil || string(out) != "completion\n" {
		t.Errorf("the installed bash completion offers %q (%v), want completion", out, err)
	}
}

// TestLintian runs lintian on the .deb: no errors. Warnings and the rest
// are logged.
func TestLintian(t *testing.T) {
	lintian := need(t, "lintian", "lintian")
	out := packages(t)
	deb := glob(t, filepath.Join(out, "hivecrawl_9.8.7.test_*.deb"))
	b, err := exec.Command(lintian, "--display-info", "--pedantic", deb).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("lintian: %v", err)
	} else if ee != nil && !bytes.Contains(b, []byte("E: ")) {
		t.Errorf("lintian exited %d without an error tag:\n%s", ee.ExitCode(), b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "E: "):
			t.Errorf("lintian: %s", line)
		case strings.HasPrefix(line, "W: "), strings.HasPrefix(line, "I: "), strings.HasPrefix(line, "P: "):
			t.Logf("lintian: %s", line)
		}
	}
}

// TestChangelogNamesTheVersion checks that the Debian changelog's latest
// entry is the release cmd/hivecrawl/version.go names, so a release is not
// packaged without its entry.
func TestChangelogNamesTheVersion(t *testing.T) {
	src, err := os.ReadFile("../cmd/hivecrawl/version.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^var version = "(.*)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no version in cmd/hivecrawl/version.go")
	}
	log, err := os.ReadFile("linux/changelog")
	if err != nil {
		t.Fatal(err)
	}
	want := "hivecrawl (" + string(m[1]) + ") "
	if !strings.HasPrefix(string(log), want) {
		t.Errorf("linux/changelog starts %q, want %q", strings.SplitN(string(log), "\n", 2)[0], want)
	}
	if p, err := exec.LookPath("dpkg-parsechangelog"); err == nil {
		if b, err := exec.Command(p, "-l", "linux/changelog", "-S", "Version").CombinedOutput(); err != nil || strings.TrimSpace(string(b)) != string(m[1]) {
			t.Errorf("dpkg-parsechangelog: %v: %s", err, b)
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
	// A 64-bit installer (hivecrawl.nsi says why), which file names only
	// as a PE: NSIS's own header tells that NSIS made it.
	b, err := exec.Command(file, "-b", exe).Output()
	if err != nil || !strings.Contains(string(b), "PE32+ executable (GUI) x86-64") {
		t.Errorf("file says %q (%v), want a 64-bit PE executable", b, err)
	}
	if data, err := os.ReadFile(exe); err != nil || !bytes.Contains(data, []byte("\xef\xbe\xad\xdeNullsoftInst")) {
		t.Errorf("%s: no NSIS header (%v)", exe, err)
	}
	// The program inside is the Windows build, without a console window.
	b, err = exec.Command(file, "-b", filepath.Join(out, "windows-amd64", "hivecrawl.exe")).Output()
	if err != nil || !strings.Contains(string(b), "PE32+ executable (GUI) x86-64") {
		t.Errorf("hivecrawl.exe: file says %q (%v)", b, err)
	}
}
