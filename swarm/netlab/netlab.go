//go:build linux

// Package netlab builds small networks for tests out of Linux network
// namespaces: a web site served at a documentation address (RFC 5737)
// inside a namespace the test creates, reached over a veth pair, so a
// client can crawl it with loopback still refused. Nothing leaves the
// machine: the addresses are not routed anywhere else, and the
// namespace and its link go when the test ends.
//
// It needs root and the ip command (Debian's iproute2); without them a
// test that asks for a site is skipped with the reason.
package netlab

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

var seq atomic.Int32

// maxSites is how many /30s of 198.51.100.0/24 sites use: the first and
// the last are left to the NAT lab's and the network's own addresses.
const maxSites = 62

// Site serves h at a documentation address in a network namespace of its
// own and returns the site's base URL ("http://198.51.100.N"), on port
// 80. Each call makes a new namespace, so sites are distinct hosts.
func Site(t testing.TB, h http.Handler) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netlab needs root to make network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("netlab needs the ip command (Debian's iproute2)")
	}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The addresses are the host's, shared by every test process that
	// runs at the same time (the suite runs packages side by side): a
	// /30 is taken under a lock on the whole machine, and only when no
	// interface holds its host address. Linux would give one address to
	// two interfaces without a word, and the older route would win.
	unlock, err := lockAddresses()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	reapStale()
	n := int(seq.Add(1))
	for ; n <= maxSites && addressInUse(fmt.Sprintf("198.51.100.%d", 4*n+1)); n = int(seq.Add(1)) {
	}
	if n > maxSites {
		t.Fatal("netlab: every site address in 198.51.100.0/24 is taken")
	}
	name := fmt.Sprintf("hcnl-%d-%d", os.Getpid(), n)
	outer, inner := fmt.Sprintf("hcnl%do%d", os.Getpid()%100000, n), fmt.Sprintf("hcnl%di%d", os.Getpid()%100000, n)
	// A /30 per site in 198.51.100.0/24 (TEST-NET-2): .4n+1 on the
	// host's end, .4n+2 in the namespace.
	hostIP, siteIP := fmt.Sprintf("198.51.100.%d", 4*n+1), fmt.Sprintf("198.51.100.%d", 4*n+2)
	ip("netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	ip("link", "add", outer, "type", "veth", "peer", "name", inner)
	t.Cleanup(func() { exec.Command("ip", "link", "del", outer).Run() })
	ip("link", "set", inner, "netns", name)
	ip("addr", "add", hostIP+"/30", "dev", outer)
	ip("link", "set", outer, "up")
	ip("-n", name, "addr", "add", siteIP+"/30", "dev", inner)
	ip("-n", name, "link", "set", inner, "up")
	ip("-n", name, "link", "set", "lo", "up")

	ln, err := listenIn(name, siteIP+":80")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + siteIP
}

// listenIn opens a TCP listener inside network namespace name: the socket
// belongs to the namespace it was made in, whichever thread accepts on it
// later.
func listenIn(name, addr string) (net.Listener, error) {
	var (
		ln  net.Listener
		err error
	)
	if nerr := inNamespace(name, func() { ln, err = net.Listen("tcp4", addr) }); nerr != nil {
		return nil, nerr
	}
	if err != nil {
		return nil, fmt.Errorf("netlab: listen on %s in %s: %w", addr, name, err)
	}
	return ln, nil
}

// inNamespace runs fn on a thread inside network namespace name, then
// brings the thread back. Sockets fn makes stay in that namespace.
func inNamespace(name string, fn func()) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	home, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return fmt.Errorf("netlab: %w", err)
	}
	defer home.Close()
	ns, err := os.Open("/run/netns/" + name)
	if err != nil {
		return fmt.Errorf("netlab: %w", err)
	}
	defer ns.Close()
	if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("netlab: enter %s: %w", name, err)
	}
	fn()
	if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
		// This thread is in the wrong namespace: let it die with the
		// lock held rather than run other goroutines there.
		runtime.LockOSThread()
		panic(fmt.Sprintf("netlab: cannot return to the test's namespace: %v", err))
	}
	return nil
}

// lockFile serialises taking site addresses among test processes.
const lockFile = "/run/hivecrawl-netlab.lock"

// lockAddresses takes the machine-wide lock on site addresses and returns
// its release.
func lockAddresses() (func(), error) {
	f, err := os.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("netlab: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("netlab: lock %s: %w", lockFile, err)
	}
	return func() { f.Close() }, nil
}

// addressInUse reports whether an interface of the host holds addr.
func addressInUse(addr string) bool {
	out, err := exec.Command("ip", "-o", "addr", "show", "to", addr+"/32").Output()
	return err != nil || len(strings.TrimSpace(string(out))) > 0
}

// reapStale deletes the namespaces and links of sites whose test process
// is gone (killed before its cleanups ran), so their addresses are free.
func reapStale() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		var pid, n int
		if _, err := fmt.Sscanf(f[0], "hcnl-%d-%d", &pid, &n); err != nil || processAlive(pid) {
			continue
		}
		exec.Command("ip", "link", "del", fmt.Sprintf("hcnl%do%d", pid%100000, n)).Run()
		exec.Command("ip", "netns", "del", f[0]).Run()
	}
}

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	return unix.Kill(pid, 0) != unix.ESRCH
}
