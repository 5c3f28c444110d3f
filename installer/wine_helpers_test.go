package installer

import (
	"bytes"
	"context"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Wine test's helpers: a throwaway prefix and the programs run in
// it, the site it crawls, and the DLL a Wine 8 prefix lacks.

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
