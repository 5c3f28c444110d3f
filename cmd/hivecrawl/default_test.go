package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/testkit/dbustest"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// desktopEnv is the environment of a child hivecrawl: isolated directories
// and the given display and session bus ("" = none).
func desktopEnv(t *testing.T, display, bus string) (env []string, config string) {
	home := t.TempDir()
	config = filepath.Join(home, "config")
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "XDG_CONFIG_HOME="+config, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_DIRS="+filepath.Join(home, "etc"))
	if display != "" {
		env = append(env, "DISPLAY="+display)
	}
	if bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	return env, config
}

// waitAPI waits for the child's api.json and a status answer.
func waitAPI(t *testing.T, config string, exited <-chan error, out *syncBuffer) (loopback.Info, *localapi.Client) {
	t.Helper()
	path := filepath.Join(config, "hivecrawl", "api.json")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if info, err := loopback.ReadInfo(path); err == nil {
			c := localapi.NewClient(info)
			if _, err := c.Status(context.Background()); err == nil {
				return info, c
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("hivecrawl exited: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no local API from hivecrawl\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func start(t *testing.T, bin string, env []string, args ...string) (*exec.Cmd, <-chan error, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out := &syncBuffer{started: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
	})
	return cmd, exited, out
}

func TestDefaultCommand(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)

	t.Run("no desktop: headless", func(t *testing.T) {
		env, config := desktopEnv(t, "", "")
		cmd, exited, out := start(t, bin, env)
		info, api := waitAPI(t, config, exited, out)
		st, err := api.Status(context.Background())
		if err != nil || st.UIURL != info.URL {
			t.Fatalf("status ui_url %q (%v), want %q", st.UIURL, err, info.URL)
		}
		if !strings.Contains(out.String(), "running without a tray") {
			t.Errorf("no word of running headless:\n%s", out.String())
		}
		// `hivecrawl open --print` gives a link that signs a browser in.
		open := exec.Command(bin, "open", "--print", "settings")
		open.Env = env
		link, err := open.Output()
		if err != nil {
			t.Fatalf("open --print: %v", err)
		}
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := hc.Get(strings.TrimSpace(string(link)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#settings" || len(resp.Cookies()) != 1 {
			t.Errorf("sign-in link answered %d to %q with %d cookies", resp.StatusCode, resp.Header.Get("Location"), len(resp.Cookies()))
		}
		// Without a desktop, `hivecrawl open` says where to open the link.
		open = exec.Command(bin, "open")
		open.Env = env
		said, err := open.Output()
		if err != nil || !strings.Contains(string(said), "No desktop here") || !strings.Contains(string(said), "/ui/login?code=") || !strings.Contains(string(said), "ssh -L") {
			t.Errorf("open without a desktop: %v\n%s", err, said)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, out.String())
		}

		// `hivecrawl run` without --headless, and no desktop: headless too.
		cmd, exited, out = start(t, bin, env, "run")
		waitAPI(t, config, exited, out)
		if !strings.Contains(out.String(), "running without a tray (as with --headless)") {
			t.Errorf("run without a desktop:\n%s", out.String())
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, out.String())
		}
	})

	t.Run("desktop: tray, start at login, quit", func(t *testing.T) {
		addr := dbustest.Bus(t)
		conn, err := dbus.Connect(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		w := &watcher{items: make(chan string, 4)}
		conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher")
		if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("own the watcher name: %v %v", reply, err)
		}
		// A display name is enough: the tray talks D-Bus only.
		env, config := desktopEnv(t, ":99", addr)
		cmd, exited, out := start(t, bin, env)
		_, api := waitAPI(t, config, exited, out)
		select {
		case <-w.items:
		case <-time.After(20 * time.Second):
			t.Fatalf("no tray item registered\n%s", out.String())
		}
		name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", cmd.Process.Pid)

		// A second `hivecrawl` opens the running one's dashboard; when no
		// browser starts it says so and gives the link.
		fakeBin := t.TempDir()
		if err := os.WriteFile(filepath.Join(fakeBin, "xdg-open"), []byte("#!/bin/sh\necho 'xdg-open: no method available' >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		second := exec.Command(bin)
		second.Env = append(slices.Clone(env), "PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
		said, err := second.CombinedOutput()
		if err == nil || !strings.Contains(string(said), "no method available") || !strings.Contains(string(said), "/ui/login?code=") {
			t.Errorf("a second hivecrawl with no browser: %v\n%s", err, said)
		}

		// Start at login, switched on through the API, writes the entry.
		if _, err := api.SetConfig(context.Background(), localapi.Change{Key: "start_at_login", Value: "true"}); err != nil {
			t.Fatal(err)
		}
		entry := filepath.Join(config, "autostart", "hivecrawl.desktop")
		data, err := os.ReadFile(entry)
		if err != nil || !strings.Contains(string(data), "Exec="+bin) || strings.Contains(string(data), "Hidden=true") {
			t.Fatalf("autostart entry %s: %v\n%s", entry, err, data)
		}

		// Quit from the tray menu ends the process gracefully.
		menu := conn.Object(name, "/StatusNotifierItem/menu")
		var quitID int32 = -1
		deadline := time.Now().Add(20 * time.Second)
		for quitID < 0 && time.Now().Before(deadline) {
			var rev uint32
			var layout struct {
				ID       int32
				Props    map[string]dbus.Variant
				Children []dbus.Variant
			}
			if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &layout); err != nil {
				t.Fatalf("GetLayout: %v", err)
			}
			for _, ch := range layout.Children {
				f, _ := ch.Value().([]any)
				if len(f) < 2 {
					continue
				}
				props, _ := f[1].(map[string]dbus.Variant)
				if l, ok := props["label"]; ok && l.Value() == "Quit Hivecrawl" {
					quitID, _ = f[0].(int32)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if quitID < 0 {
			t.Fatal("no Quit entry in the tray menu")
		}
		// Sent expecting no reply: Quit closes the process's bus
		// connection, and when the reply to the click has not gone out
		// by then (a busy machine) the daemon answers "NoReply: Message
		// recipient disconnected from message bus without replying".
		// What the click did is checked below.
		if err := menu.Call("com.canonical.dbusmenu.Event", dbus.FlagNoReplyExpected, quitID, "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("exit after Quit: %v\n%s", err, out.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Quit did not end hivecrawl\n%s", out.String())
		}
		if !strings.Contains(out.String(), "Client stopped") {
			t.Errorf("no graceful stop logged:\n%s", out.String())
		}
	})
}

type watcher struct{ items chan string }

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.items <- string(sender)
	return nil
}
