package crawler

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestUnreachableHostNamesTheCause checks that a run whose host cannot be
// reached says why, not that robots.txt was unavailable.
func TestUnreachableHostNamesTheCause(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: the connection is refused
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{"http://" + addr + "/"}, MaxDepth: 1})
	if want := "unreachable: 127.0.0.1 refused the connection (nothing listens on its port)"; res.Stopped != want {
		t.Fatalf("Stopped = %q, want %q", res.Stopped, want)
	}
}

func TestUnreachableWords(t *testing.T) {
	get := func(err error) error {
		return &url.Error{Op: "Get", URL: "http://example.org/robots.txt", Err: err}
	}
	dial := func(errno syscall.Errno) error {
		return get(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)})
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no such host", get(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "example.org", IsNotFound: true}}),
			"DNS lookup failed for example.org: no such host"},
		{"offline resolver", get(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "example.org", Server: "127.0.0.53:53"}}),
			"DNS lookup failed for example.org: server misbehaving"},
		{"DNS timeout", get(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "i/o timeout", Name: "example.org", IsTimeout: true}}),
			"DNS lookup failed for example.org: no DNS server answered"},
		{"refused", dial(syscall.ECONNREFUSED), "example.org refused the connection (nothing listens on its port)"},
		{"no network", dial(syscall.ENETUNREACH), "no route to example.org (network unreachable: is this machine offline?)"},
		{"no route", dial(syscall.EHOSTUNREACH), "no route to example.org (network unreachable: is this machine offline?)"},
		{"timeout", fmt.Errorf("get http://example.org/robots.txt: %w", ErrTimeout), "example.org did not answer in time (timeout)"},
		{"other", errors.New("tls: handshake failure"), "could not reach example.org: tls: handshake failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unreachable("example.org", tc.err); got != tc.want {
				t.Fatalf("Unreachable = %q, want %q", got, tc.want)
			}
		})
	}
}
