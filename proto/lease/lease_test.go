package lease

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/proto/frame"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    Request
		ok   bool
	}{
		{"claim", Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1, BotKey: make([]byte, 32)}, true},
		{"renew", Request{Op: Renew, TaskID: "a/1/0", Epoch: 1, Pages: 3}, true},
		{"release", Request{Op: Release, TaskID: "a/1/0", Epoch: 1}, true},
		{"unknown op", Request{Op: "steal", TaskID: "a/1/0"}, false},
		{"no task ID", Request{Op: Renew}, false},
		{"task ID too long", Request{Op: Renew, TaskID: strings.Repeat("x", 129)}, false},
		{"claim without the signed task", Request{Op: Claim, TaskID: "a/1/0", Epoch: 1}, false},
		{"oversized bot key", Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", BotKey: make([]byte, 65)}, false},
		{"negative progress", Request{Op: Renew, TaskID: "a/1/0", Pages: -1}, false},
		{"claim with addresses", Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1, Addrs: []string{"192.0.2.1", "2001:db8::1"}}, true},
		{"not an address", Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1, Addrs: []string{"example.com"}}, false},
		{"too many addresses", Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1, Addrs: strings.Split("1.1.1.1 1.1.1.2 1.1.1.3 1.1.1.4 1.1.1.5 1.1.1.6 1.1.1.7 1.1.1.8 1.1.1.9", " ")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrMalformed)) {
				t.Fatalf("Validate = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// FuzzRequest feeds the manager's decoding of lease requests arbitrary
// bytes: it must refuse or accept, never panic, and what it accepts must
// encode again.
func FuzzRequest(f *testing.F) {
	var b bytes.Buffer
	frame.Write(&b, Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1}, MaxMessageSize)
	f.Add(b.Bytes())
	b.Reset()
	frame.Write(&b, Request{Op: Claim, Task: []byte("env"), TaskID: "a/1/0", Epoch: 1, Addrs: []string{"192.0.2.1"}}, MaxMessageSize)
	f.Add(b.Bytes())
	f.Add([]byte{0x05, '{', '}', 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, in []byte) { roundTrip(t, in, (*Request).Validate) })
}

// roundTrip is the body of the fuzz targets of the protocol's messages:
// a message of type M that decodes from in and validates must encode
// again, and nothing panics.
func roundTrip[M any](t *testing.T, in []byte, validate func(*M) error) {
	var m M
	if err := frame.Read(bufio.NewReader(bytes.NewReader(in)), &m, MaxMessageSize); err != nil {
		return
	}
	if validate(&m) != nil {
		return
	}
	var out bytes.Buffer
	if err := frame.Write(&out, m, MaxMessageSize); err != nil {
		t.Fatalf("a valid %T does not encode: %v", m, err)
	}
}

// FuzzRevocation feeds the crawler's decoding of revocations arbitrary
// bytes: it must refuse or accept, never panic, and what it accepts must
// encode again.
func FuzzRevocation(f *testing.F) {
	var b bytes.Buffer
	frame.Write(&b, Revocation{Reason: "2 results failed validation"}, MaxMessageSize)
	f.Add(b.Bytes())
	f.Add([]byte{0x02, '{', '}'})
	f.Fuzz(func(t *testing.T, in []byte) { roundTrip(t, in, (*Revocation).Validate) })
}
