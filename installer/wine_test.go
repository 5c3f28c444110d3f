package installer

import (
	"bytes"
	"context"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/testport"
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

// wine runs programs in one throwaway prefix, with no display and its own
// home, so nothing reaches the user's desktop or menus.
type wine struct {
	t      *testing.T
	prefix string
	tmp    string
	env    []string
}

func newWine(t *testing.T) *wine {
	dir := t.TempDir()
	w := &wine{t: t, prefix: filepath.Join(dir, "prefix"), tmp: dir}
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "DISPLAY", name == "WAYLAND_DISPLAY", name == "HOME", name == "DBUS_SESSION_BUS_ADDRESS",
			strings.HasPrefix(name, "WINE"), strings.HasPrefix(name, "XDG_"):
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env, "HOME="+home, "WINEPREFIX="+w.prefix, "WINEDEBUG=-all",
		// No Mono or Gecko install prompts; no Linux menu entries for
		// the Start menu's shortcuts.
		"WINEDLLOVERRIDES=mscoree,mshtml=;winemenubuilder.exe=d")
	// Registered after TempDir's removal, so it runs before it: every
	// process of the prefix ends.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		server := filepath.Join(filepath.Dir(wine64), "wineserver")
		for _, arg := range []string{"-k", "-w"} {
			cmd := exec.CommandContext(ctx, server, arg)
			cmd.Env = w.env
			cmd.Run()
		}
	})
	return w
}

// command is wine64 running args[0] (a Windows program or path) with the
// rest, its output into files: Wine's helper processes keep a pipe open
// after the program ends.
func (w *wine) command(ctx context.Context, args ...string) (cmd *exec.Cmd, stdout, stderr *os.File) {
	w.t.Helper()
	cmd = exec.CommandContext(ctx, wine64, args...)
	cmd.Env = w.env
	var err error
	if stdout, err = os.CreateTemp(w.tmp, "stdout"); err != nil {
		w.t.Fatal(err)
	}
	if stderr, err = os.CreateTemp(w.tmp, "stderr"); err != nil {
		w.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd, stdout, stderr
}

// run runs args and returns its output.
func (w *wine) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	w.t.Helper()
	cmd, o, e := w.command(ctx, args...)
	defer o.Close()
	defer e.Close()
	err = cmd.Run()
	ob, _ := os.ReadFile(o.Name())
	eb, _ := os.ReadFile(e.Name())
	return string(ob), string(eb), err
}

// must runs args and returns its output, trimmed; a failure ends the test.
func (w *wine) must(ctx context.Context, args ...string) string {
	w.t.Helper()
	out, errs, err := w.run(ctx, args...)
	if err != nil {
		w.t.Fatalf("wine %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errs)
	}
	return strings.TrimSpace(out)
}

// unix is the Unix path of a Windows path in the prefix.
func (w *wine) unix(ctx context.Context, path string) string {
	w.t.Helper()
	return w.must(ctx, "winepath", "-u", path)
}

// reg returns a registry key's string values, and whether it exists.
func (w *wine) reg(ctx context.Context, key string) (map[string]string, bool) {
	w.t.Helper()
	out, errs, err := w.run(ctx, "reg", "query", key)
	if err != nil {
		if strings.Contains(out+errs, "Unable to find") {
			return nil, false
		}
		w.t.Fatalf("reg query %s: %v\n%s%s", key, err, out, errs)
	}
	values := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		// "    NAME    REG_SZ    VALUE"
		f := strings.SplitN(strings.TrimSpace(line), "    ", 3)
		if len(f) == 3 && f[1] == "REG_SZ" {
			values[f[0]] = f[2]
		}
	}
	return values, true
}

// process is a program started under Wine.
type process struct {
	cmd    *exec.Cmd
	stderr *os.File
	done   chan struct{}
	once   sync.Once
}

// start starts args and stops it at the test's end if the test did not.
func (w *wine) start(ctx context.Context, args ...string) *process {
	w.t.Helper()
	cmd, o, e := w.command(ctx, args...)
	err := cmd.Start()
	o.Close()
	if err != nil {
		e.Close()
		w.t.Fatalf("start %s: %v", args[0], err)
	}
	p := &process{cmd: cmd, stderr: e, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		p.stop(w.t)
		if w.t.Failed() {
			w.t.Logf("%s's stderr:\n%s", args[0], p.output())
		}
	})
	return p
}

// stop kills the process and waits for it.
func (p *process) stop(t *testing.T) {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Errorf("process %d did not end", p.cmd.Process.Pid)
		}
		p.stderr.Close()
	})
}

// output is what the process wrote to stderr.
func (p *process) output() string {
	b, _ := os.ReadFile(p.stderr.Name())
	return string(b)
}

// trayLines are what fyne.io/systray said on the process's stderr.
func (p *process) trayLines() string {
	var lines []string
	for _, l := range strings.Split(p.output(), "\n") {
		if strings.Contains(l, "systray") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// eventually polls ok every 100 ms until it holds or ctx ends.
func eventually(ctx context.Context, t *testing.T, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited in vain for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wineSite is a three-page site on loopback for the crawl.
type wineSite struct {
	*httptest.Server
	mu   sync.Mutex // guards hits
	hits map[string]int
}

// winePages are the site's pages: their path, title and a word only that
// page's text has.
var winePages = []struct{ path, title, word string }{
	{"/", "Beekeeping at home", "hivewelcome"},
	{"/frames", "Frames and foundation", "framewords"},
	{"/winter", "Bees in winter", "wintercluster"},
}

func newWineSite(t *testing.T) *wineSite {
	s := &wineSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(rw, "User-agent: *\nAllow: /\n")
			return
		}
		for _, p := range winePages {
			if p.path != r.URL.Path {
				continue
			}
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(rw, "<!doctype html><html><head><title>%s</title></head><body><nav>", p.title)
			for _, q := range winePages {
				fmt.Fprintf(rw, `<a href="%s">%s</a> `, q.path, q.title)
			}
			fmt.Fprintf(rw, "</nav><article><h1>%s</h1>", p.title)
			for i := range 6 {
				fmt.Fprintf(rw, "<p>Paragraph %d about %s, the word %s. A colony keeps its brood warm, "+
					"stores honey in the upper frames and needs room before the spring flow. The keeper "+
					"checks the queen, the comb and the stores every week of the season.</p>", i+1, strings.ToLower(p.title), p.word)
			}
			fmt.Fprint(rw, "</article></body></html>")
			return
		}
		http.NotFound(rw, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// check reads the crawl's JSON lines: each page once, with its text, and
// a summary counting them.
func (s *wineSite) check(t *testing.T, jsonl string) {
	t.Helper()
	texts := map[string]string{}
	var summary struct {
		Stats struct {
			PagesFetched int `json:"pages_fetched"`
		} `json:"stats"`
	}
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var l struct {
			Type, URL, Title, Text string
			Status                 int
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("crawl output: %v: %q", err, line)
		}
		switch l.Type {
		case "page":
			if l.Status != http.StatusOK {
				t.Errorf("%s: status %d", l.URL, l.Status)
			}
			texts[strings.TrimPrefix(l.URL, s.URL)] = l.Title + "\n" + l.Text
		case "summary":
			json.Unmarshal([]byte(line), &summary)
		}
	}
	for _, p := range winePages {
		if text := texts[p.path]; !strings.Contains(text, p.title) || !strings.Contains(text, p.word) {
			t.Errorf("page %s: crawled text %.200q, want its title and %q", p.path, text, p.word)
		}
	}
	if len(texts) != len(winePages) || summary.Stats.PagesFetched != len(winePages) {
		t.Errorf("%d pages, summary says %d fetched, want %d:\n%s", len(texts), summary.Stats.PagesFetched, len(winePages), jsonl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hits["/robots.txt"] != 1 {
		t.Errorf("robots.txt fetched %d times, want once", s.hits["/robots.txt"])
	}
}

// processPrngDLL is a bcryptprimitives.dll for a Wine that has none
// (Wine 8.0, Debian 12's): Go's runtime loads it at start for ProcessPrng,
// which Windows 10 and later have. The DLL holds no code: its one export
// forwards to advapi32's SystemFunction036 (RtlGenRandom), which fills
// the buffer from the system's random source as ProcessPrng does, and
// returns TRUE. Wine 9 and later ship the DLL and need no stand-in.
func processPrngDLL() []byte {
	const (
		rva     = 0x1000 // the one section's address in memory
		fileOff = 0x200  // and in the file
	)
	dll, name, forward := "bcryptprimitives.dll\x00", "ProcessPrng\x00", "advapi32.SystemFunction036\x00"
	// The export directory (40 bytes), then one address, one name
	// pointer, one ordinal, then the strings. An address inside the
	// directory's range is a forwarder's name.
	addresses := rva + 40
	names := addresses + 4
	ordinals := names + 4
	dllName := ordinals + 2
	exportName := dllName + len(dll)
	forwarder := exportName + len(name)
	var ed bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&ed, le, [10]uint32{0, 0, 0, uint32(dllName), 1, 1, 1, uint32(addresses), uint32(names), uint32(ordinals)})
	binary.Write(&ed, le, uint32(forwarder))
	binary.Write(&ed, le, uint32(exportName))
	binary.Write(&ed, le, uint16(0))
	ed.WriteString(dll + name + forward)

	var f bytes.Buffer
	dos := make([]byte, 0x40)
	copy(dos, "MZ")
	le.PutUint32(dos[0x3c:], uint32(len(dos))) // e_lfanew: the PE header follows
	f.Write(dos)
	f.WriteString("PE\x00\x00")
	binary.Write(&f, le, pe.FileHeader{
		Machine: pe.IMAGE_FILE_MACHINE_AMD64, NumberOfSections: 1,
		SizeOfOptionalHeader: uint16(binary.Size(pe.OptionalHeader64{})),
		Characteristics:      pe.IMAGE_FILE_EXECUTABLE_IMAGE | pe.IMAGE_FILE_LARGE_ADDRESS_AWARE | pe.IMAGE_FILE_DLL,
	})
	oh := pe.OptionalHeader64{
		Magic: 0x20b, SizeOfInitializedData: 0x200, BaseOfCode: rva, ImageBase: 0x180000000,
		SectionAlignment: 0x1000, FileAlignment: 0x200, MajorOperatingSystemVersion: 6, MajorSubsystemVersion: 6,
		SizeOfImage: 0x2000, SizeOfHeaders: fileOff, Subsystem: pe.IMAGE_SUBSYSTEM_WINDOWS_CUI,
		DllCharacteristics: pe.IMAGE_DLLCHARACTERISTICS_DYNAMIC_BASE | pe.IMAGE_DLLCHARACTERISTICS_NX_COMPAT,
		SizeOfStackReserve: 0x100000, SizeOfStackCommit: 0x1000, SizeOfHeapReserve: 0x100000, SizeOfHeapCommit: 0x1000,
		NumberOfRvaAndSizes: 16,
	}
	oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT] = pe.DataDirectory{VirtualAddress: rva, Size: uint32(ed.Len())}
	binary.Write(&f, le, oh)
	sh := pe.SectionHeader32{
		VirtualSize: uint32(ed.Len()), VirtualAddress: rva, SizeOfRawData: 0x200, PointerToRawData: fileOff,
		Characteristics: pe.IMAGE_SCN_CNT_INITIALIZED_DATA | pe.IMAGE_SCN_MEM_READ,
	}
	copy(sh.Name[:], ".rdata")
	binary.Write(&f, le, sh)
	f.Write(make([]byte, fileOff-f.Len()))
	f.Write(ed.Bytes())
	f.Write(make([]byte, fileOff+0x200-f.Len()))
	return f.Bytes()
}
