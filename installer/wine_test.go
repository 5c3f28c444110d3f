package installer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/testport"
)

// wine64 is where Debian's wine64 package puts the loader: off PATH (the
// wine package's wrappers are not installed), beside its wineserver.
const wine64 = "/usr/lib/wine/wine64"

// TestWindowsUnderWine runs the Windows build for real under Wine, in a
// throwaway prefix: the NSIS installer installs silently (/S) for the
// current user, with its files, Start menu entries, Apps & features key
// and start-at-login value; the installed hivecrawl.exe, started without
// arguments as that value and the Start menu start it, runs the client
// in solo mode, whose local API and dashboard answer on 127.0.0.1 (the
// token, the CLI's status, a sign-in link from 'hivecrawl open --print');
// the client takes the installer's start-at-login value as its setting;
// 'hivecrawl crawl' fetches a site the test serves on loopback; and the
// uninstaller, run as Apps & features runs it, removes the program, its
// entries and keys, and leaves the user's data.
//
// What Wine cannot show: the tray icon and its menu (with no display
// Wine has no notification area: fyne.io/systray fails to start, and the
// test logs its words), toast notifications (beeep runs PowerShell, which
// Wine lacks), the client starting at login (the test reads the Run
// value; no login happens), the installer's and uninstaller's pages
// (only the silent mode runs), a clean quit (a GUI program gets no
// console Ctrl+C, and the tray's Quit is not there: the test kills the
// process), what Windows itself adds around a program (SmartScreen's
// warning for an unsigned one, Defender, the firewall's prompt for a
// network-mode client's listener, per-user ACLs), and Windows versions
// themselves: Debian 12's Wine 8.0 stands in for Windows 10 and 11.
// Battery and idle detection run with Windows' own calls (the governor's
// Windows test), but Wine's machine has no battery to unplug.
// Wine 8.0 also lacks bcryptprimitives.dll, which Go's runtime loads on
// Windows 10 and later, where the system has it: the test gives the
// prefix a stand-in (processPrngDLL).
func TestWindowsUnderWine(t *testing.T) {
	need(t, wine64, "wine64")
	need(t, "makensis", "nsis")
	out := packages(t)
	if !windows {
		t.Skip("the Windows installer was not built")
	}
	setup := glob(t, filepath.Join(out, "hivecrawl-9.8.7.test-setup.exe"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w := newWine(t)

	began := time.Now()
	w.must(ctx, "wineboot", "--init")
	t.Logf("Wine's first boot of the prefix: %v", time.Since(began).Round(100*time.Millisecond))
	system32 := filepath.Join(w.prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(filepath.Join(system32, "bcryptprimitives.dll")); err != nil {
		if err := os.WriteFile(filepath.Join(system32, "bcryptprimitives.dll"), processPrngDLL(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("This Wine has no bcryptprimitives.dll: the prefix got a stand-in that forwards ProcessPrng to RtlGenRandom")
	}
	// The governor's power source and idle time, with Windows' own calls
	// (GetSystemPowerStatus, GetLastInputInfo): its Windows test, built
	// for Windows and run here. Wine's machine has no battery.
	gov := filepath.Join(t.TempDir(), "governor.test.exe")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", gov, "../app/governor")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the governor's tests for Windows: %v\n%s", err, b)
	}
	if got := w.must(ctx, gov, "-test.run", "^TestWindowsPowerAndPresence$", "-test.v"); !strings.Contains(got, "on battery: false;") || !strings.Contains(got, "--- PASS") {
		t.Errorf("the governor's Windows test under Wine:\n%s", got)
	} else {
		t.Logf("the governor under Wine: %s", strings.TrimSpace(got[strings.Index(got, "on battery"):strings.Index(got, "--- PASS")]))
	}
	appData := w.must(ctx, "cmd", "/c", "echo", "%APPDATA%")
	localAppData := w.must(ctx, "cmd", "/c", "echo", "%LOCALAPPDATA%")

	// The installer, silently, as an administrator deploying it would.
	// Its exit status is not evidence (Wine reports 0 for a program it
	// could not start): what it left is.
	w.must(ctx, setup, "/S")
	const uninstKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Hivecrawl`
	const runKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
	key, ok := w.reg(ctx, uninstKey)
	if !ok {
		t.Fatalf("no %s after the silent install: the installer did not run (WINEDEBUG=err+all tells why)", uninstKey)
	}
	instDir := key["InstallLocation"]
	if want := localAppData + `\Programs\Hivecrawl`; instDir != want {
		t.Errorf("InstallLocation %q, want %q", instDir, want)
	}
	exe := instDir + `\hivecrawl.exe`
	for name, want := range map[string]string{
		"DisplayName":     "Hivecrawl",
		"DisplayVersion":  strings.TrimPrefix(testVersion, "v"),
		"UninstallString": `"` + instDir + `\uninstall.exe"`,
		"DisplayIcon":     instDir + `\hivecrawl.ico`,
	} {
		if key[name] != want {
			t.Errorf("%s\\%s = %q, want %q", uninstKey, name, key[name], want)
		}
	}
	// Silently, the sections on by default are installed: start at login
	// is one.
	if run, _ := w.reg(ctx, runKey); run["Hivecrawl"] != `"`+exe+`"` {
		t.Errorf("%s\\Hivecrawl = %q, want %q", runKey, run["Hivecrawl"], `"`+exe+`"`)
	}
	installed := w.unix(ctx, instDir)
	startMenu := w.unix(ctx, appData+`\Microsoft\Windows\Start Menu\Programs\Hivecrawl`)
	for _, f := range []string{
		filepath.Join(installed, "hivecrawl.exe"),
		filepath.Join(installed, "hivecrawl.ico"),
		filepath.Join(installed, "uninstall.exe"),
		filepath.Join(startMenu, "Hivecrawl.lnk"),
		filepath.Join(startMenu, "Uninstall Hivecrawl.lnk"),
	} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	if a, b := fileBytes(t, filepath.Join(installed, "hivecrawl.exe")), fileBytes(t, filepath.Join(out, "windows-amd64", "hivecrawl.exe")); !bytes.Equal(a, b) {
		t.Errorf("the installed hivecrawl.exe (%d bytes) is not the one built (%d bytes)", len(a), len(b))
	}
	if t.Failed() {
		t.FailNow()
	}

	// The installed program: a GUI program's output still reaches a pipe.
	if v := w.must(ctx, exe, "--version"); !strings.HasPrefix(v, "hivecrawl "+strings.TrimPrefix(testVersion, "v")+" (") {
		t.Errorf("hivecrawl.exe --version: %q", v)
	}

	// The client, started as the Run value and the Start menu start it.
	// Its dashboard port is taken (by this test: another program holding
	// the default 7339 does the same), so it takes a free one for the run,
	// as on Linux: Windows says "taken" with its own Winsock error.
	config := w.unix(ctx, appData+`\hivecrawl`)
	port := testport.Fixed(t)
	held, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	os.MkdirAll(config, 0o700)
	if err := os.WriteFile(filepath.Join(config, "config.json"), fmt.Appendf(nil, `{"api_port": %d}`, port), 0o600); err != nil {
		t.Fatal(err)
	}
	client := w.start(ctx, exe)
	var info struct{ URL, Token string }
	eventually(ctx, t, "the client's api.json", func() bool {
		select {
		case <-client.done:
			t.Fatalf("the client ended: %v\n%s", client.cmd.ProcessState, client.output())
		default:
		}
		data, err := os.ReadFile(filepath.Join(config, "api.json"))
		return err == nil && json.Unmarshal(data, &info) == nil && info.URL != ""
	})
	if taken := fmt.Sprintf("http://127.0.0.1:%d", port); info.URL == taken || !strings.HasPrefix(info.URL, "http://127.0.0.1:") {
		t.Fatalf("the local API is at %s, want another port on 127.0.0.1 than the taken %s", info.URL, taken)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, info.URL+path, nil)
		if token != "" {
			req.Header.Set("X-Hivecrawl-Token", token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/", ""); code != http.StatusOK || !strings.Contains(body, "<title>Hivecrawl") {
		t.Errorf("the dashboard's page: %d %.200q", code, body)
	}
	if code, _ := get("/api/status", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /api/status without the token: %d, want 401", code)
	}
	var st struct {
		Version string `json:"version"`
		Desktop bool   `json:"desktop"`
	}
	code, body := get("/api/status", info.Token)
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || st.Version != strings.TrimPrefix(testVersion, "v") || !st.Desktop {
		t.Errorf("GET /api/status: %d %.300s; want the version %s, with the tray's start (desktop)", code, body, testVersion)
	}
	// The CLI finds the running client through api.json.
	if s := w.must(ctx, exe, "status"); !strings.HasPrefix(s, "Hivecrawl is running") {
		t.Errorf("hivecrawl status: %q", s)
	}
	// The dashboard signs in with a link from 'hivecrawl open --print'.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Timeout: 10 * time.Second, Jar: jar, Transport: &http.Transport{Proxy: nil}}
	link := w.must(ctx, exe, "open", "--print")
	if resp, err := browser.Get(link); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the sign-in link %s: %v %v", link, resp, err)
	} else {
		resp.Body.Close()
	}
	var session struct {
		SignedIn bool `json:"signed_in"`
	}
	if resp, err := browser.Get(info.URL + "/ui/session"); err != nil {
		t.Errorf("GET /ui/session: %v", err)
	} else {
		json.NewDecoder(resp.Body).Decode(&session)
		resp.Body.Close()
		if !session.SignedIn {
			t.Error("the dashboard is not signed in after the sign-in link")
		}
	}
	// The client takes the installer's start-at-login value as its
	// setting (app/autostart reads the Run key).
	eventually(ctx, t, "start_at_login in config.json", func() bool {
		var c struct {
			StartAtLogin bool `json:"start_at_login"`
		}
		data, err := os.ReadFile(filepath.Join(config, "config.json"))
		return err == nil && json.Unmarshal(data, &c) == nil && c.StartAtLogin
	})
	data := w.unix(ctx, localAppData+`\hivecrawl`)
	logFile := filepath.Join(data, "hivecrawl.log")
	if b, err := os.ReadFile(logFile); err != nil || !bytes.Contains(b, []byte(`msg="Client started"`)) {
		t.Errorf("event log %s: %v\n%s", logFile, err, b)
	}

	// A crawl of a site on loopback, by the installed program.
	site := newWineSite(t)
	jsonl := w.must(ctx, exe, "crawl", "--allow-loopback", "--delay", "0", site.URL+"/")
	site.check(t, jsonl)

	// No quit without the tray: the client is killed before the uninstall.
	client.stop(t)
	if tray := client.trayLines(); tray != "" {
		t.Logf("the tray under Wine (expected to fail without a display):\n%s", tray)
	}

	// The uninstaller, as Apps & features runs it: it copies itself to
	// %TEMP%, starts the copy and exits, so the test waits for its work.
	w.must(ctx, instDir+`\uninstall.exe`, "/S")
	eventually(ctx, t, "the uninstaller to remove "+installed, func() bool {
		_, err := os.Stat(installed)
		return os.IsNotExist(err)
	})
	if _, err := os.Stat(startMenu); !os.IsNotExist(err) {
		t.Errorf("the Start menu folder is still there: %v", err)
	}
	if _, ok := w.reg(ctx, uninstKey); ok {
		t.Errorf("%s is still there", uninstKey)
	}
	if run, _ := w.reg(ctx, runKey); run["Hivecrawl"] != "" {
		t.Errorf("%s\\Hivecrawl is still there: %q", runKey, run["Hivecrawl"])
	}
	// The settings and data stay, so a reinstall keeps the credits.
	for _, f := range []string{filepath.Join(config, "config.json"), logFile} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the uninstall removed the user's files: %v", err)
		}
	}
	t.Logf("under Wine, from the first boot to the uninstall: %v", time.Since(began).Round(100*time.Millisecond))
}
