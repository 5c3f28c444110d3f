package zonecert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Proof shows the manager that a peer may claim a task's host lease: the
// certificate of the zone holding the task's target (the task's owner),
// and the hand-offs that brought the task from the owner to the claimer,
// each signed by the peer that passed it on. Load balancing and sharing
// add a hand-off at every step; a task taken at its owner has none.
//
// A peer that only saw the task's envelope (a peer on its routing path, a
// neighbour it was balanced past) holds neither: its claim is refused.
type Proof struct {
	Owner    Cert
	Handoffs []Handoff
}

// Handoff is one step of a task from a peer that held it to To, signed
// with the sender's libp2p key.
type Handoff struct {
	To  peer.ID
	Sig []byte
}

// MaxHandoffs bounds a proof's hand-offs: load balancing's TTL (3) and
// sharing's two hops, with room to spare.
const MaxHandoffs = 8

// MaxProofSize bounds an encoded proof.
const MaxProofSize = 1 + 2 + MaxSize + 1 + MaxHandoffs*(2+maxIDBytes+2+maxSigBytes)

const (
	proofVersion  = 1
	handoffDomain = "hivecrawl-handoff/1\x00"
)

// ErrNoProof is returned by Proof.Verify for a proof that does not show
// the claimer may hold the task.
var ErrNoProof = errors.New("zonecert: no proof that this peer may hold the task")

// OwnerProof is the proof of the holder of c, whose zone holds a task's
// target.
func OwnerProof(c Cert) Proof { return Proof{Owner: c} }

// Holder is the peer the proof shows holding the task: the last hand-off's
// recipient, or the owner.
func (p Proof) Holder() peer.ID {
	if n := len(p.Handoffs); n > 0 {
		return p.Handoffs[n-1].To
	}
	return p.Owner.Holder
}

// Pass returns p extended by a hand-off of task id under lease epoch to
// peer to, signed with key, the key of p's holder. p is not changed.
func (p Proof) Pass(id string, epoch uint64, to peer.ID, key crypto.PrivKey) (Proof, error) {
	if len(p.Handoffs) >= MaxHandoffs {
		return Proof{}, fmt.Errorf("pass task %s on: already %d hand-offs", id, len(p.Handoffs))
	}
	from := p.Holder()
	sig, err := key.Sign(handoffBody(id, epoch, len(p.Handoffs), from, to))
	if err != nil {
		return Proof{}, fmt.Errorf("sign hand-off of task %s to %s: %w", id, to, err)
	}
	out := Proof{Owner: p.Owner, Handoffs: append(p.Handoffs[:len(p.Handoffs):len(p.Handoffs)], Handoff{To: to, Sig: sig})}
	return out, nil
}

func handoffBody(id string, epoch uint64, i int, from, to peer.ID) []byte {
	b := []byte(handoffDomain)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, epoch)
	b = binary.AppendUvarint(b, uint64(i))
	b = binary.AppendUvarint(b, uint64(len(from)))
	b = append(b, from...)
	return append(b, to...)
}

// Claim is what a proof is checked against: the signed task's ID, lease
// epoch, target and issue time, whether it is pinned to its target's
// holder (task.Task.Pinned), and the peer claiming it.
type Claim struct {
	Task    string
	Epoch   uint64
	Target  can.Point
	Issued  time.Time
	Pinned  bool
	Claimer peer.ID
}

// Verify checks that p shows c.Claimer may hold the task: the owner's
// certificate is the manager's, its zone holds the target, and it was
// valid after the task was issued (a peer whose zone passed on before the
// task existed proves nothing); every hand-off is signed by the peer that
// held the task then, and a pinned task has none; the last one reaches
// the claimer. Errors wrap
// ErrNoProof.
func (p Proof) Verify(manager crypto.PubKey, c Claim) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrNoProof, fmt.Sprintf(format, args...))
	}
	if err := p.Owner.Verify(manager); err != nil {
		return fail("%v", err)
	}
	if !p.Owner.Path.Zone(len(c.Target)).Contains(c.Target) {
		return fail("the owner's zone %q does not hold the task's target", p.Owner.Path)
	}
	if !p.Owner.Expiry.After(c.Issued) {
		return fail("the owner's certificate expired at %s, before the task was issued at %s",
			p.Owner.Expiry.Format(time.RFC3339), c.Issued.Format(time.RFC3339))
	}
	switch {
	case len(p.Handoffs) > MaxHandoffs:
		return fail("%d hand-offs, more than %d", len(p.Handoffs), MaxHandoffs)
	case c.Pinned && len(p.Handoffs) > 0:
		return fail("the task is pinned to the holder of its target, and was passed on %d times", len(p.Handoffs))
	}
	from := p.Owner.Holder
	for i, h := range p.Handoffs {
		key, err := from.ExtractPublicKey()
		if err != nil {
			return fail("hand-off %d: no key in peer ID %s: %v", i, from, err)
		}
		ok, err := key.Verify(handoffBody(c.Task, c.Epoch, i, from, h.To), h.Sig)
		if err != nil || !ok {
			return fail("hand-off %d of task %s to %s is not signed by %s", i, c.Task, h.To, from)
		}
		from = h.To
	}
	if from != c.Claimer {
		return fail("it shows %s holding the task, not %s", from, c.Claimer)
	}
	return nil
}

// MarshalBinary encodes p: a version byte, the owner's certificate
// (uvarint length first), the hand-off count, and each hand-off's
// recipient and signature (each uvarint length first).
func (p Proof) MarshalBinary() ([]byte, error) {
	if len(p.Handoffs) > MaxHandoffs {
		return nil, fmt.Errorf("encode proof: %d hand-offs, more than %d", len(p.Handoffs), MaxHandoffs)
	}
	c, err := p.Owner.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode proof: %w", err)
	}
	b := []byte{proofVersion}
	b = binary.AppendUvarint(b, uint64(len(c)))
	b = append(b, c...)
	b = binary.AppendUvarint(b, uint64(len(p.Handoffs)))
	for _, h := range p.Handoffs {
		b = binary.AppendUvarint(b, uint64(len(h.To)))
		b = append(b, h.To...)
		b = binary.AppendUvarint(b, uint64(len(h.Sig)))
		b = append(b, h.Sig...)
	}
	return b, nil
}

// DecodeProof parses an encoded proof, refusing anything else with an
// error wrapping ErrCorrupt. It verifies nothing: see Proof.Verify.
func DecodeProof(b []byte) (Proof, error) {
	p, err := decodeProof(b)
	if err != nil {
		return Proof{}, fmt.Errorf("decode proof: %w: %w", ErrCorrupt, err)
	}
	return p, nil
}

func decodeProof(b []byte) (Proof, error) {
	var p Proof
	if len(b) > MaxProofSize {
		return p, fmt.Errorf("%d bytes, more than %d", len(b), MaxProofSize)
	}
	if len(b) == 0 || b[0] != proofVersion {
		return p, fmt.Errorf("not a version %d proof", proofVersion)
	}
	off := 1
	field := func(what string, limit uint64) ([]byte, error) {
		n, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return nil, fmt.Errorf("%s length at byte %d: bad varint", what, off)
		}
		off += k
		if n > limit || n > uint64(len(b)-off) {
			return nil, fmt.Errorf("%s at byte %d: %d bytes, past the end or over %d", what, off, n, limit)
		}
		out := b[off : off+int(n)]
		off += int(n)
		return out, nil
	}
	raw, err := field("owner's certificate", MaxSize)
	if err != nil {
		return p, err
	}
	if p.Owner, err = decode(raw); err != nil {
		return p, fmt.Errorf("owner's certificate: %w", err)
	}
	n, k := binary.Uvarint(b[off:])
	if k <= 0 || n > MaxHandoffs {
		return p, fmt.Errorf("hand-off count at byte %d: bad varint or over %d", off, MaxHandoffs)
	}
	off += k
	for i := range n {
		to, err := field(fmt.Sprintf("hand-off %d's recipient", i), maxIDBytes)
		if err != nil {
			return p, err
		}
		id, err := peer.IDFromBytes(to)
		if err != nil {
			return p, fmt.Errorf("hand-off %d's recipient: %w", i, err)
		}
		sig, err := field(fmt.Sprintf("hand-off %d's signature", i), maxSigBytes)
		if err != nil {
			return p, err
		}
		p.Handoffs = append(p.Handoffs, Handoff{To: id, Sig: append([]byte(nil), sig...)})
	}
	if off != len(b) {
		return p, fmt.Errorf("%d bytes after the proof", len(b)-off)
	}
	return p, nil
}
