package zonecert

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestProofVerify: the owner's proof and a chain of hand-offs it signed
// verify for the peer they reach, and every lie a peer could tell about
// how it came to hold a task is refused.
func TestProofVerify(t *testing.T) {
	mgr, _ := key(t, 1)
	owner, _, b := issue(t, mgr) // b holds path "1": x in [0.5, 1]
	bKey, _ := key(t, 3)
	cKey, c := key(t, 4)
	_, d := key(t, 5)
	thiefKey, thief := key(t, 6)
	claim := Claim{Task: "task-1", Epoch: 7, Target: []float64{0.9, 0.2, 0.2}, Issued: t0.Add(30 * time.Second), Claimer: b}
	as := func(id peer.ID, cl Claim) Claim { cl.Claimer = id; return cl }

	pinned := claim
	pinned.Pinned = true
	for _, cl := range []Claim{claim, pinned} {
		if err := OwnerProof(owner).Verify(mgr.GetPublic(), cl); err != nil {
			t.Fatalf("the owner's own proof, pinned %v: %v", cl.Pinned, err)
		}
	}
	toC, err := OwnerProof(owner).Pass(claim.Task, claim.Epoch, c, bKey)
	if err != nil {
		t.Fatal(err)
	}
	toD, err := toC.Pass(claim.Task, claim.Epoch, d, cKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Proof{toC, toD} {
		cl := claim
		cl.Claimer = p.Holder()
		if err := p.Verify(mgr.GetPublic(), cl); err != nil {
			t.Fatalf("chain to %s: %v", p.Holder(), err)
		}
	}
	if len(toC.Handoffs) != 1 {
		t.Fatalf("Pass changed the proof it extended: %d hand-offs", len(toC.Handoffs))
	}

	otherMgr, _ := key(t, 9)
	forgedCert := owner
	forgedCert.Holder = thief
	if err := forgedCert.Sign(otherMgr); err != nil {
		t.Fatal(err)
	}
	selfSigned, err := OwnerProof(owner).Pass(claim.Task, claim.Epoch, thief, thiefKey) // not b's key
	if err != nil {
		t.Fatal(err)
	}
	otherTask, err := OwnerProof(owner).Pass("task-2", claim.Epoch, thief, bKey)
	if err != nil {
		t.Fatal(err)
	}
	otherEpoch, err := OwnerProof(owner).Pass(claim.Task, claim.Epoch+1, thief, bKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		proof Proof
		claim Claim
	}{
		{"a peer that only saw the envelope shows the owner's proof", OwnerProof(owner), as(thief, claim)},
		{"a certificate signed by another key", OwnerProof(forgedCert), as(thief, claim)},
		{"the target outside the owner's zone", OwnerProof(owner), func() Claim { cl := claim; cl.Target = []float64{0.1, 0.2, 0.2}; return cl }()},
		{"the owner's certificate expired before the task was issued", OwnerProof(owner), func() Claim { cl := claim; cl.Issued = owner.Expiry; return cl }()},
		{"a hand-off signed by the claimer, not the holder", selfSigned, as(thief, claim)},
		{"a hand-off of another task", otherTask, as(thief, claim)},
		{"a hand-off under another lease epoch", otherEpoch, as(thief, claim)},
		{"a chain that reaches another peer", toD, as(c, claim)},
		{"the owner after passing the task on, claiming by the chain", toC, claim},
		{"a pinned task passed on, claimed by the peer it was passed to", toC, as(c, pinned)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.proof.Verify(mgr.GetPublic(), tt.claim)
			if !errors.Is(err, ErrNoProof) {
				t.Fatalf("Verify = %v, want ErrNoProof", err)
			}
			t.Log(err)
		})
	}
}

// TestProofEncoding: a proof survives encoding, and bytes that are not a
// proof are refused as corrupt.
func TestProofEncoding(t *testing.T) {
	mgr, _ := key(t, 1)
	owner, _, _ := issue(t, mgr)
	bKey, _ := key(t, 3)
	_, c := key(t, 4)
	p, err := OwnerProof(owner).Pass("task-1", 7, c, bKey)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := got.MarshalBinary()
	if !bytes.Equal(again, raw) || got.Holder() != c {
		t.Fatalf("decoded proof differs: holder %s", got.Holder())
	}
	for _, b := range [][]byte{nil, {2}, raw[:len(raw)-1], append(bytes.Clone(raw), 0), bytes.Repeat([]byte{1}, MaxProofSize+1)} {
		if _, err := DecodeProof(b); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("DecodeProof(%x…) = %v, want ErrCorrupt", b[:min(len(b), 8)], err)
		}
	}
}

// FuzzDecodeProof checks that DecodeProof refuses what it cannot use, that
// what it accepts encodes back to the same bytes, and that verifying it
// does not panic.
func FuzzDecodeProof(f *testing.F) {
	mgr, _ := key(f, 1)
	owner, _, b := issue(f, mgr)
	bKey, _ := key(f, 3)
	_, c := key(f, 4)
	raw, _ := OwnerProof(owner).MarshalBinary()
	f.Add(raw)
	p, err := OwnerProof(owner).Pass("task-1", 7, c, bKey)
	if err != nil {
		f.Fatal(err)
	}
	raw, _ = p.MarshalBinary()
	f.Add(raw)
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := DecodeProof(in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("accepted proof does not encode: %v", err)
		}
		if !bytes.Equal(again, in) {
			t.Fatalf("re-encoded %x, read %x", again, in)
		}
		_ = p.Verify(mgr.GetPublic(), Claim{Task: "task-1", Epoch: 7, Target: []float64{0.9, 0.2, 0.2}, Issued: t0, Claimer: b})
	})
}
