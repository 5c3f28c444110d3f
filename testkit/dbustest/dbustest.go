// Package dbustest starts private D-Bus buses for tests: a dbus-daemon of
// the test's own (Bus), and python3-dbusmock serving one of its templates
// on it (Mock), so tray, notification and power tests talk D-Bus for real
// without the machine's session or system bus.
//
// Outside CI a missing dbus-daemon or python3-dbusmock skips the test; in
// CI (CI=true) it fails it, since scripts/test.sh installs both.
package dbustest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Bus starts a private dbus-daemon, stopped when the test ends, and
// returns its address.
func Bus(t testing.TB) string {
	t.Helper()
	bin := need(t, "dbus-daemon", "dbus-daemon is not installed", "Debian's dbus-daemon package")
	// Not t.TempDir: a test's name may hold commas, which end a value in
	// a D-Bus address.
	dir, err := os.MkdirTemp("", "hivecrawl-bus")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "bus")
	cmd := exec.Command(bin, "--session", "--nofork", "--nopidfile", "--address=unix:path="+sock, "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read dbus-daemon's address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// python is Debian's interpreter, which python3-dbusmock is installed for
// (a python3 earlier on PATH may be another).
const python = "/usr/bin/python3"

// Mock serves python3-dbusmock's template (upower, logind, …) with its
// parameters (a JSON object, "" for none) on the bus at addr, as the
// system bus when system is set, until the test ends. It returns once the
// template's bus name is owned.
func Mock(t testing.TB, addr, template, parameters string, system bool) {
	t.Helper()
	need(t, python, "python3 is not installed", "Debian's python3 package")
	if err := exec.Command(python, "-c", "import dbusmock").Run(); err != nil {
		need(t, "", "python3-dbusmock is not installed", "Debian's python3-dbusmock package")
	}
	args := []string{"-m", "dbusmock", "--template", template}
	if parameters != "" {
		args = append(args, "--parameters", parameters)
	}
	env := "DBUS_SESSION_BUS_ADDRESS="
	if system {
		args = append(args, "--system")
		env = "DBUS_SYSTEM_BUS_ADDRESS="
	}
	cmd := exec.Command(python, args...)
	cmd.Env = append(os.Environ(), env+addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbusmock: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	names := map[string]string{"upower": "org.freedesktop.UPower", "logind": "org.freedesktop.login1"}
	name, ok := names[template]
	if !ok {
		t.Fatalf("dbustest: no bus name known for dbusmock's %s template", template)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var has bool
		if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err == nil && has {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("dbusmock's %s template did not own %s within 30 s", template, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// need returns the path of bin, or skips the test (fails it in CI) with
// why and what installs it. An empty bin always skips or fails.
func need(t testing.TB, bin, why, pkg string) string {
	t.Helper()
	if bin != "" {
		if p, err := exec.LookPath(bin); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (scripts/test.sh installs %s)", why, pkg)
	}
	t.Skipf("%s: apt-get install %s", why, pkg)
	return ""
}
