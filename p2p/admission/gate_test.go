package admission

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// gateCase is a gate at member self of a certified map, and a point of
// its zone.
type gateCase struct {
	*certified
	self   peer.ID
	target can.Point
	gate   *Gate
	rtt    map[string]time.Duration // the gate's measured round trips
}

func newGateCase(t *testing.T) *gateCase {
	t.Helper()
	c := &gateCase{certified: newCertified(t), rtt: map[string]time.Duration{}}
	_, _, _, c.self = c.roles(t)
	z := c.zone(c.self)
	c.target = can.Point{(z.Lo[0] + z.Hi[0]) / 2, (z.Lo[1] + z.Hi[1]) / 2}
	c.gate = NewGate(c.self, c.manager.GetPublic(), NewMemory(), 2, func(h string) (time.Duration, bool) {
		d, ok := c.rtt[h]
		return d, ok
	}, nil)
	return c
}

// seal returns task id on host h, aimed at target, with a live lease,
// sealed by key.
func (c *gateCase) seal(t *testing.T, id, h string, target can.Point, key crypto.PrivKey, edit func(*task.Task)) []byte {
	t.Helper()
	tk := &task.Task{ID: id, Seeds: []string{"https://" + h + "/"}, Issued: time.Now(), Target: target, Lease: task.Lease{Host: h, Epoch: 1, Expires: time.Now().Add(time.Minute)}}
	if edit != nil {
		edit(tk)
	}
	env, err := envelope.Seal(tk, key)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestGateAdmitsOnce: at the target's owner, a genuine task is admitted
// once; a replay, a forgery, an ended lease, a task issued ahead and one
// sent to another point than its signed target are refused and counted
// by reason; a refusal is not recorded as seen.
func TestGateAdmitsOnce(t *testing.T) {
	c := newGateCase(t)
	ctx := context.Background()
	other, _ := key(t)
	env := c.seal(t, "a", "a.example", c.target, c.manager, nil)
	admit := func(env []byte, target can.Point) error {
		_, err := c.gate.Admit(ctx, Insert{Envelope: env, Target: target})
		return err
	}
	elsewhere := can.Point{c.target[0], c.target[1] + 1e-3}
	if err := admit(env, elsewhere); !errors.Is(err, ErrTargetMismatch) {
		t.Fatalf("sent to another point: %v, want %v", err, ErrTargetMismatch)
	}
	if err := admit(env, c.target); err != nil {
		t.Fatalf("the genuine task, after a refusal: %v", err)
	}
	for _, tc := range []struct {
		name string
		env  []byte
		want error
	}{
		{"replayed", env, ErrSeen},
		{"forged", c.seal(t, "b", "b.example", c.target, other, nil), envelope.ErrForged},
		{"lease ended", c.seal(t, "c", "c.example", c.target, c.manager, func(tk *task.Task) { tk.Lease.Expires = time.Now().Add(-time.Second) }), ErrNoLease},
		{"issued ahead", c.seal(t, "d", "d.example", c.target, c.manager, func(tk *task.Task) { tk.Issued = time.Now().Add(time.Hour) }), ErrIssuedAhead},
	} {
		if err := admit(tc.env, c.target); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	want := Counts{Invalid: 1, Expired: 1, IssuedAhead: 1, Mistargeted: 1, Replayed: 1}
	if got := c.gate.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

// TestGateBalanced: a task balanced or shared here is admitted only with
// a path the caller's check accepts and a proof that lets this peer claim
// it; a shared one only if its host is not more than Reach times as far
// from here as from its sharer. Refusals are not recorded as seen.
func TestGateBalanced(t *testing.T) {
	c := newGateCase(t)
	ctx := context.Background()
	owner, _, _, _ := c.roles(t)
	env := c.seal(t, "a", "a.example", c.target, c.manager, nil)
	mine, err := zonecert.OwnerProof(c.certs[c.self]).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := zonecert.OwnerProof(c.certs[owner]).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	badPath := func() error { return fmt.Errorf("%w: zones do not abut", ErrMisaimed) }
	goodPath := func() error { return nil }
	c.rtt["a.example"] = 100 * time.Millisecond
	for _, tc := range []struct {
		name string
		in   Insert
		want error
	}{
		{"a path refused", Insert{Path: badPath, Proof: mine}, ErrMisaimed},
		{"no proof", Insert{Path: goodPath}, ErrMisaimed},
		{"another member's proof", Insert{Path: goodPath, Proof: theirs}, ErrMisaimed},
		{"shared from nearer the host", Insert{Path: goodPath, Proof: mine, Sharer: 40 * time.Millisecond}, ErrTooFar},
		{"shared from near enough", Insert{Path: goodPath, Proof: mine, Sharer: 50 * time.Millisecond}, nil},
		{"again", Insert{Path: goodPath, Proof: mine}, ErrSeen},
	} {
		in := tc.in
		in.Envelope, in.Target, in.From = env, c.target, owner
		_, err := c.gate.Admit(ctx, in)
		if tc.want == nil && err != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if got, want := c.gate.Counts(), (Counts{Misaimed: 3, Replayed: 1}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

// TestGateTakesBackWhatItPassed: a task this peer passed on comes back
// once with a leaving neighbour's zone; a second time, or once its lease
// has ended in the gate's record, it is a replay.
func TestGateTakesBackWhatItPassed(t *testing.T) {
	c := newGateCase(t)
	ctx := context.Background()
	from := c.ids[0]
	a := c.seal(t, "a", "a.example", c.target, c.manager, nil)
	b := c.seal(t, "b", "b.example", c.target, c.manager, nil)
	for _, env := range [][]byte{a, b} {
		tk, err := c.gate.Admit(ctx, Insert{Envelope: env, Target: c.target})
		if err != nil {
			t.Fatal(err)
		}
		c.gate.Passed(tk)
	}
	if _, err := c.gate.AdmitHandedOver(ctx, a, from); err != nil {
		t.Fatalf("a task passed on, handed back: %v", err)
	}
	if _, err := c.gate.AdmitHandedOver(ctx, a, from); !errors.Is(err, ErrSeen) {
		t.Fatalf("handed back twice: %v, want %v", err, ErrSeen)
	}
	c.gate.Forget(time.Now().Add(time.Minute + MaxClockSkew + time.Second))
	if _, err := c.gate.AdmitHandedOver(ctx, b, from); !errors.Is(err, ErrSeen) {
		t.Fatalf("handed back after the record's lease ended: %v, want %v", err, ErrSeen)
	}
	if _, err := c.gate.AdmitHandedOver(ctx, []byte("not an envelope"), from); err == nil {
		t.Fatal("a broken envelope handed over was taken")
	}
	if got, want := c.gate.Counts(), (Counts{Invalid: 1, Replayed: 2, Returned: 1}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}
