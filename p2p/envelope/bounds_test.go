package envelope

import (
	"errors"
	"math"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

func testBounds() Bounds {
	return Bounds{Epoch: 3, Bounds: coord.Bounds{Lo: []float64{-40, -35, -10}, Hi: []float64{60, 45, 12}}}
}

// TestBoundsRoundTrip: bounds signed by the manager open with its key and
// with no other, and a task envelope is not taken for bounds.
func TestBoundsRoundTrip(t *testing.T) {
	manager, other := newKey(t), newKey(t)
	b, err := SealBounds(testBounds(), manager)
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenBounds(b, manager.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	if got.Epoch != 3 || got.Bounds.Hi[2] != 12 {
		t.Fatalf("opened %+v", got)
	}
	if _, err := OpenBounds(b, other.GetPublic()); !errors.Is(err, ErrForged) {
		t.Fatalf("bounds opened with another key: %v", err)
	}
	tk, err := Seal(testTask(), manager)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBounds(tk, manager.GetPublic()); err == nil {
		t.Fatal("a task opened as bounds")
	}
}

// TestBoundsRefusesBadBoxes: empty, inverted or unbounded boxes are
// refused when sealing and when opening.
func TestBoundsRefusesBadBoxes(t *testing.T) {
	manager := newKey(t)
	for name, b := range map[string]coord.Bounds{
		"empty":    {},
		"inverted": {Lo: []float64{1, 0, 0}, Hi: []float64{0, 1, 1}},
		"flat":     {Lo: []float64{0, 0, 0}, Hi: []float64{0, 1, 1}},
		"nan":      {Lo: []float64{math.NaN(), 0, 0}, Hi: []float64{1, 1, 1}},
		"huge":     {Lo: []float64{-1e9, 0, 0}, Hi: []float64{1, 1, 1}},
		"ragged":   {Lo: []float64{0, 0}, Hi: []float64{1, 1, 1}},
	} {
		if _, err := SealBounds(Bounds{Epoch: 1, Bounds: b}, manager); err == nil {
			t.Errorf("%s box sealed", name)
		}
		payload := []byte(`{"epoch":1,"bounds":{"lo":[1,0,0],"hi":[0,1,1]}}`)
		raw, err := SealRecord(BoundsKind, payload, manager)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := OpenBounds(raw, manager.GetPublic()); !errors.Is(err, ErrInvalidPayload) {
			t.Fatalf("inverted signed box opened: %v", err)
		}
	}
}

func FuzzOpenBounds(f *testing.F) {
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		f.Fatal(err)
	}
	good, err := SealBounds(testBounds(), k)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := OpenBounds(data, k.GetPublic())
		if err != nil {
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("opened bounds do not validate: %v", err)
		}
	})
}
