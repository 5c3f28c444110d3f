package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// taskQueue is an overlay peer's queue that keeps what it was given.
type taskQueue struct {
	mu     sync.Mutex
	tasks  []*task.Task
	envs   [][]byte
	proofs [][]byte
}

func (q *taskQueue) Enqueue(_ context.Context, t *task.Task, env, proof []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tasks, q.envs, q.proofs = append(q.tasks, t), append(q.envs, env), append(q.proofs, proof)
	return nil
}
func (q *taskQueue) Load() (int, int64) { q.mu.Lock(); defer q.mu.Unlock(); return len(q.tasks), 0 }
func (q *taskQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	return nil, nil, nil
}
func (q *taskQueue) first() (*task.Task, []byte, []byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.tasks) == 0 {
		return nil, nil, nil, false
	}
	return q.tasks[0], q.envs[0], q.proofs[0], true
}

// startManager runs the built binary as a manager and waits for its status
// page line.
func startManager(t *testing.T, bin, home string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"manager", "--home", home, "--listen", "/ip4/127.0.0.1/tcp/0", "--allow-loopback", "--tick", "100ms"}, extra...)
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The manager's log is kept, and shown when the test fails: a wait
	// that ran out says only that something did not come.
	logPath := filepath.Join(t.TempDir(), "manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 16<<10 {
				b = b[len(b)-16<<10:]
			}
			t.Logf("the manager's log (%s), its end:\n%s", strings.Join(args, " "), b)
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		closed := false
		for sc.Scan() {
			if !closed && strings.HasPrefix(sc.Text(), "Status page:") {
				close(ready)
				closed = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("manager did not start")
	}
	return cmd
}

func managerStatus(t *testing.T, home string) operator.Status {
	t.Helper()
	dirs, _ := paths.Resolve(home)
	info, err := loopback.ReadInfo(filepath.Join(managerDir(dirs), manager.APIFile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(info.URL + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st operator.Status
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("hivecrawl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func connect(t *testing.T, h *host.Host, p *profile.Profile) peer.ID {
	t.Helper()
	m, err := ma.NewMultiaddr(p.Bootstrap[0])
	if err != nil {
		t.Fatal(err)
	}
	ai, err := peer.AddrInfoFromP2pAddr(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(context.Background(), *ai); err != nil {
		t.Fatal(err)
	}
	return ai.ID
}

// TestManagerKilledLosesNothing runs `hivecrawl manager` as a process, adds
// seeds, lets an overlay peer receive a task and upload its result, kills
// the manager with SIGKILL, restarts it and checks that every channel and
// the accepted result are still there.
func TestManagerKilledLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	home, client := t.TempDir(), t.TempDir()
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("# two hosts\nhttp://a.example/\nhttp://b.example/news/\nnot a url\n"), 0o644)
	cmd := startManager(t, bin, home, "--seeds", seeds)

	out := run(t, bin, "seed", "add", "--manager", "--home", home, "http://c.example/")
	if !strings.Contains(out, "1 new channels c.example") {
		t.Fatalf("seed add: %s", out)
	}
	dirs, _ := paths.Resolve(home)
	profPath := filepath.Join(managerDir(dirs), manager.ProfileFile)
	first := uploadFirstTask(t, bin, profPath, client, "bob")
	ph, up, d, receipt := first.ph, first.up, first.d, first.receipt
	before := managerStatus(t, home)
	if before.Channels != 3 || before.Stored.Uploads != 1 || before.Tasks["done"] != 1 {
		t.Fatalf("before the kill: %+v", before)
	}

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	startManager(t, bin, home)
	after := managerStatus(t, home)
	if after.Channels != 3 || after.Stored.Uploads != 1 || after.Stored.Records != 1 || after.Tasks["done"] != 1 ||
		len(after.Contributors) != 1 || after.Contributors[0].Nickname != "bob" {
		t.Fatalf("after restart: %+v", after)
	}
	// The same upload again is recognised: the same receipt, no new credit.
	restarted, err := profile.Read(profPath)
	if err != nil {
		t.Fatal(err)
	}
	connect(t, ph, restarted)
	again, err := up.Upload(context.Background(), d)
	if err != nil || string(again) != string(receipt) {
		t.Fatalf("repeat after restart: %v, same receipt %v", err, string(again) == string(receipt))
	}
}

// firstUpload is a volunteer's first result to a manager process.
type firstUpload struct {
	ph      *host.Host // the overlay peer that took the task
	up      *upload.Uploader
	d       taskmgr.Delivery
	receipt []byte
}

// uploadFirstTask joins the network of the profile at profPath as a
// client in client; an overlay peer owning the whole space takes the
// manager's first task, claims the host's lease as a crawler does before
// it starts (storage takes results only from the lease holder), and
// uploads one page as its result under nickname.
func uploadFirstTask(t *testing.T, bin, profPath, client, nickname string) firstUpload {
	t.Helper()
	out := run(t, bin, "join", profPath, "--home", client, "--allow-loopback")
	joined, err := profile.Read(filepath.Join(client, "config", profile.FileName))
	if err != nil {
		t.Fatalf("join stored no profile: %v (%s)", err, out)
	}
	f := firstUpload{}
	key, _ := joined.Key()
	quiet := slog.New(slog.DiscardHandler)
	f.ph, err = host.New(context.Background(), host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ph.Close() })
	q := &taskQueue{}
	mid := connect(t, f.ph, joined)
	n, err := node.New(f.ph, q, node.Config{Point: can.Point{0.5, 0.5, 0.5}, Manager: key, Logger: quiet, Authority: entry.Client{Host: f.ph, Manager: mid}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Join(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A member renews its certificates, or the manager hands its zone on
	// after their 30 s and sends it nothing; the first task may come later
	// than that on a busy machine.
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); n.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-served })
	var tk *task.Task
	var env, proof []byte
	waitUntil(t, func() bool { var ok bool; tk, env, proof, ok = q.first(); return ok })
	if _, err := lease.Send(context.Background(), f.ph, mid, lease.Request{Op: lease.Claim, Task: env, Proof: proof, TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
		t.Fatal(err)
	}
	spool := filepath.Join(t.TempDir(), "spool")
	sp, _ := crawler.OpenSpool(spool)
	sp.Page(&task.Page{URL: tk.Seeds[0], Status: 200, FetchedAt: time.Now(), Digest: 42, Text: []byte("stored before the kill")})
	sp.Close()
	f.d = taskmgr.Delivery{TaskID: tk.ID, Channel: tk.Channel, Raw: env, Spool: spool, Result: &task.Result{TaskID: tk.ID, Channel: tk.Channel}}
	f.up = &upload.Uploader{Host: f.ph, Storage: mid, Manager: key, Nickname: nickname}
	if f.receipt, err = f.up.Upload(context.Background(), f.d); err != nil {
		t.Fatal(err)
	}
	return f
}

// waitUntil polls cond for up to 2 minutes; it waits for an event, it
// does not time anything. The deadline is beyond the manager's own
// retries: a task whose send got no answer is sent again after
// dispatch.SendTimeout (15 s), twice, so one lost answer on a busy machine takes
// over 30 s to deliver (a 30 s wait ran out once in five cold runs
// beside a CPU hog).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 2 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestManagerPortInUse checks that a manager whose listen port is taken
// says so and names the flag that changes it, not libp2p's error.
func TestManagerPortInUse(t *testing.T) {
	bin := buildBinary(t)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	addr := fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", port)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "manager", "--home", t.TempDir(), "--listen", addr, "--allow-loopback")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("manager on a taken port: %v, want exit status 1\n%s", err, stderr.String())
	}
	want := fmt.Sprintf("hivecrawl manager: port %d is in use (%s, by another program or another Hivecrawl); choose another with --listen, "+
		"such as --listen /ip4/0.0.0.0/tcp/PORT --listen /ip4/0.0.0.0/udp/PORT/quic-v1\n", port, addr)
	if got := stderr.String(); !strings.HasSuffix(got, want) {
		t.Fatalf("stderr:\n%s\nwant it to end with\n%s", got, want)
	}
	if strings.Contains(stderr.String(), "failed to listen") {
		t.Errorf("stderr has libp2p's words:\n%s", stderr.String())
	}
}

// TestManagerMalformedMinClientVersion: a --min-client-version that is no
// X.Y.Z version stops the manager before it starts (exit status 2), saying
// which flag and what a good value looks like.
func TestManagerMalformedMinClientVersion(t *testing.T) {
	bin := buildBinary(t)
	for _, bad := range []string{"1.2", "latest", "0.2.0.1"} {
		t.Run(bad, func(t *testing.T) {
			home := t.TempDir()
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "manager", "--home", home, "--listen", "/ip4/127.0.0.1/tcp/0", "--allow-loopback", "--min-client-version", bad)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("manager with --min-client-version %s: %v, want exit status 2\n%s", bad, err, stderr.String())
			}
			want := fmt.Sprintf("hivecrawl manager: --min-client-version %q: ", bad)
			if got := stderr.String(); !strings.HasPrefix(got, want) || !strings.Contains(got, "give a release such as "+version) {
				t.Fatalf("stderr:\n%s\nwant it to start with %q and show a good version", got, want)
			}
		})
	}
}

// TestManagerRefusesAPolicyUnderTheFloor: `hivecrawl manager --delay 1ms`
// or with another crawler's User-Agent stops before it starts (exit
// status 1), saying why its volunteers would refuse it and what to
// choose, and writes no profile.
func TestManagerRefusesAPolicyUnderTheFloor(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"a millisecond's wait", []string{"--delay", "1ms"},
			[]string{"wait only 1ms between requests to one web site", "choose a politeness wait (--delay) of at least 1s"}},
		{"Googlebot", []string{"--allow-loopback", "--user-agent", "Googlebot/2.1 (+http://www.google.com/bot.html)"},
			[]string{`names the crawler "googlebot"`, "--user-agent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			var stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"manager", "--home", home, "--listen", "/ip4/127.0.0.1/tcp/0"}, tc.args...)...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("manager %v: %v, want exit status 1\n%s", tc.args, err, stderr.String())
			}
			got := stderr.String()
			if !strings.HasPrefix(got, "hivecrawl manager: ") || !strings.Contains(got, "volunteers would refuse every task") {
				t.Fatalf("stderr:\n%s\nwant the refusal", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("stderr:\n%s\nwant it to say %q", got, w)
				}
			}
			dirs, err := paths.Resolve(home)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(managerDir(dirs), manager.ProfileFile)); !os.IsNotExist(err) {
				t.Errorf("a profile was written (%v)", err)
			}
		})
	}
}
