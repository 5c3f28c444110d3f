package tray_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/tray"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/testkit/dbustest"
)

// watcher is a test-side org.kde.StatusNotifierWatcher: it records the
// items that register.
type watcher struct{ items chan string }

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.items <- string(sender) + service
	return nil
}

type calmSampler struct{}

func (calmSampler) Sample(context.Context) (governor.Reading, error) {
	return governor.Reading{TotalCPU: 5, ProcessCPU: 1, RSS: 40 << 20}, nil
}

// menuLabels reads the top-level menu over com.canonical.dbusmenu: id and
// label of each entry.
func menuLabels(t *testing.T, obj dbus.BusObject) map[string]int32 {
	t.Helper()
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &layout); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	out := map[string]int32{}
	for _, ch := range layout.Children {
		f, ok := ch.Value().([]any)
		if !ok || len(f) < 2 {
			t.Fatalf("menu entry %v", ch)
		}
		id, _ := f[0].(int32)
		props, _ := f[1].(map[string]dbus.Variant)
		if l, ok := props["label"]; ok {
			out[l.Value().(string)] = id
		}
	}
	return out
}

func TestTrayOverDBus(t *testing.T) {
	addr := dbustest.Bus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)

	// The test's side of the desktop: a StatusNotifierWatcher.
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := &watcher{items: make(chan string, 4)}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the watcher name: %v %v", reply, err)
	}
	// And its notification service.
	notes := &notifications{}
	if err := conn.Export(notes, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the notifications name: %v %v", reply, err)
	}

	// A real client, and the tray as its local API's client.
	ctx, cancel := context.WithCancel(context.Background())
	c, err := app.New(ctx, app.Options{Home: t.TempDir(), Sampler: calmSampler{}, Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.Serve(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	var info loopback.Info
	deadline := time.Now().Add(20 * time.Second)
	for info, err = loopback.ReadInfo(c.Dirs().APIFile()); err != nil; info, err = loopback.ReadInfo(c.Dirs().APIFile()) {
		if time.Now().After(deadline) {
			t.Fatal("client did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The tray runs in a process of its own, as a desktop session's tray
	// would. (fyne.io/systray v1.12.2 has a data race between its own
	// goroutines, GetLayout against refresh on menuVersion; the child
	// runs with GORACE exitcode=0 and this test fails only on races that
	// involve Hivecrawl's code.)
	infoJSON, _ := json.Marshal(info)
	var out syncBuffer
	child := exec.Command(os.Args[0], "-test.run=^$")
	// No display: no browser can start, as on a desktop whose browser is
	// missing.
	child.Env = append(os.Environ(), childEnv+"="+string(infoJSON), "GORACE=exitcode=0 halt_on_error=0", "DISPLAY=", "WAYLAND_DISPLAY=")
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	childDone := make(chan error, 1)
	waited := make(chan struct{})
	go func() { childDone <- child.Wait(); close(waited) }()
	defer func() {
		child.Process.Kill() // fails harmlessly once it has exited
		<-waited
	}()

	var item string
	select {
	case item = <-w.items:
	case <-time.After(20 * time.Second):
		t.Fatal("no StatusNotifierItem registered with the watcher")
	}
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", child.Process.Pid)
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil || !owned {
		t.Fatalf("%s not on the bus (%v); registered %q", name, err, item)
	}
	if !strings.HasSuffix(item, "/StatusNotifierItem") {
		t.Errorf("registered %q, want the item's path", item)
	}

	sni := conn.Object(name, "/StatusNotifierItem")
	menu := conn.Object(name, "/StatusNotifierItem/menu")
	want := []string{"Idle: waiting for tasks", "Today: 0 pages · 0.0 credits in all", tray.LabelPause, tray.LabelFinish, tray.LabelSnooze, tray.LabelDashboard, tray.LabelSettings, tray.LabelQuit}
	var labels map[string]int32
	waitUntil(t, "the menu's entries", func() bool {
		labels = menuLabels(t, menu)
		for _, l := range want {
			if _, ok := labels[l]; !ok {
				return false
			}
		}
		return true
	})
	tip := func() string {
		v, err := sni.GetProperty("org.kde.StatusNotifierItem.ToolTip")
		if err != nil {
			t.Fatalf("ToolTip: %v", err)
		}
		f, _ := v.Value().([]any)
		if len(f) < 3 {
			t.Fatalf("ToolTip %v", v)
		}
		s, _ := f[2].(string)
		return s
	}
	// The first line is the title; the next ones say why it is idle.
	waitUntil(t, "the tooltip", func() bool {
		first, why, _ := strings.Cut(tip(), "\n")
		return first == "Hivecrawl · Idle: waiting for tasks" && strings.HasPrefix(why, "Idle: ")
	})
	icon, err := sni.GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil || !strings.Contains(fmt.Sprint(icon.Value()), "64 64") {
		t.Errorf("IconPixmap %v (%v), want a 64×64 icon", icon, err)
	}

	// Pause from the menu, as a click in the desktop's tray does.
	if err := menu.Call("com.canonical.dbusmenu.Event", 0, labels[tray.LabelPause], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("click Pause: %v", err)
	}
	waitUntil(t, "the client to pause", func() bool { return c.Settings().Get().Paused })
	waitUntil(t, "Resume in the menu", func() bool { _, ok := menuLabels(t, menu)[tray.LabelResume]; return ok })
	waitUntil(t, "the paused tooltip", func() bool { return tip() == "Hivecrawl · Paused by you" })

	// Open dashboard with no browser to open it in tells the sign-in link
	// in a notification.
	if err := menu.Call("com.canonical.dbusmenu.Event", 0, labels[tray.LabelDashboard], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("click Open dashboard: %v", err)
	}
	waitUntil(t, "a notification with the dashboard's link", func() bool {
		for _, n := range notes.all() {
			if n.summary == tray.NoBrowserTitle && strings.Contains(n.body, "/ui/login?code=") && strings.Contains(n.body, "within two minutes") {
				return true
			}
		}
		return false
	})

	// Quit closes the tray and stops the client. The click is sent
	// without waiting for a reply: the tray's connection may close before
	// its reply goes out ("recipient disconnected"); the tray process
	// ending below is the answer.
	if err := menu.Call("com.canonical.dbusmenu.Event", dbus.FlagNoReplyExpected, labels[tray.LabelQuit], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("click Quit: %v", err)
	}
	select {
	case err := <-childDone:
		if err != nil {
			t.Errorf("tray process: %v\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Quit did not close the tray")
	}
	for _, race := range strings.Split(out.String(), "WARNING: DATA RACE")[1:] {
		if racyCode(race, ourCode) != "" {
			t.Errorf("data race in the tray:\n%s", race)
		} else {
			t.Logf("data race inside the tray's libraries, left to them:\n%s", race)
		}
	}
}

// ourCode is the prefix of Hivecrawl's functions in a stack trace.
const ourCode = "github.com/hivecrawl/"

// racyCode returns the first function of prefix that made one of the two
// conflicting accesses of a race detector report, or "" when both were
// made inside other code. An access's own function is the first frame of
// its stack outside the runtime, reflect and sync/atomic: a race inside a
// library reached through a call of ours (systray's SetIcon against
// godbus encoding the same property for a reader) has our function further
// down a stack, not at the access.
func racyCode(report, prefix string) string {
	lines := strings.Split(report, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.Contains(l, " at 0x") || !strings.Contains(l, " by ") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			fn := lines[j]
			if strings.TrimSpace(fn) == "" {
				break
			}
			if strings.HasPrefix(fn, "      ") { // a file:line under its function
				continue
			}
			fn = strings.TrimSpace(fn)
			if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "reflect.") ||
				strings.HasPrefix(fn, "sync/atomic.") || strings.HasPrefix(fn, "internal/") {
				continue
			}
			if strings.HasPrefix(fn, prefix) {
				return fn
			}
			break
		}
	}
	return ""
}

// syncBuffer is a bytes.Buffer safe for a process's two output streams.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRacyCode: a race whose access is made by our function is ours; one
// made inside libraries, with ours only further down a stack, is not.
func TestRacyCode(t *testing.T) {
	ours := `
Write at 0x00c0001b2000 by goroutine 12:
  runtime.slicecopy()
      /usr/local/go/src/runtime/slice.go:355 +0x0
  github.com/hivecrawl/hivecrawl/app/tray.(*menu).show()
      /work/app/tray/tray.go:86 +0x1a4

Previous read at 0x00c0001b2000 by goroutine 9:
  github.com/godbus/dbus/v5.(*encoder).encode()
      /go/pkg/mod/github.com/godbus/dbus/v5@v5.2.4/encoder.go:120 +0x2c4
`
	library := `
Write at 0x00c0001b2000 by goroutine 12:
  reflect.Value.Set()
      /usr/local/go/src/reflect/value.go:2100 +0x120
  github.com/godbus/dbus/v5.store()
      /go/pkg/mod/github.com/godbus/dbus/v5@v5.2.4/dbus.go:80 +0x90
  fyne.io/systray.SetIcon()
      /go/pkg/mod/fyne.io/systray@v1.12.2/systray_unix.go:62 +0x1b0
  github.com/hivecrawl/hivecrawl/app/tray.(*menu).show()
      /work/app/tray/tray.go:86 +0x1a4

Previous read at 0x00c0001b2000 by goroutine 9:
  github.com/godbus/dbus/v5.(*encoder).encode()
      /go/pkg/mod/github.com/godbus/dbus/v5@v5.2.4/encoder.go:120 +0x2c4

Goroutine 12 (running) created at:
  github.com/hivecrawl/hivecrawl/app/tray.Run.func1()
      /work/app/tray/tray.go:31 +0x64
`
	if got := racyCode(ours, ourCode); got != "github.com/hivecrawl/hivecrawl/app/tray.(*menu).show()" {
		t.Errorf("our race: racyCode = %q", got)
	}
	if got := racyCode(library, ourCode); got != "" {
		t.Errorf("a library's race: racyCode = %q, want none", got)
	}
}

// notifications is the test desktop's org.freedesktop.Notifications
// service: it keeps what it is asked to show.
type notifications struct {
	mu  sync.Mutex // guards got
	got []notification
}

type notification struct{ summary, body string }

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, notification{summary, body})
	return uint32(len(n.got)), nil
}

func (n *notifications) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notifications) all() []notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notification(nil), n.got...)
}
