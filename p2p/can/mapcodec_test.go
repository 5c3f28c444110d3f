package can

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sampleMap is a 3-d map of n peers joined at random points, some of
// whom left, so holders hold several zones.
func sampleMap(t testing.TB, n int) *Map {
	t.Helper()
	r := rand.New(rand.NewPCG(3, uint64(n)))
	m := NewMap(3, 30*time.Second)
	for i := range n {
		if _, err := m.Join(PeerID(fmt.Sprintf("p%03d", i)), randPoint(r, 3), t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i += 4 {
		if _, err := m.Leave(PeerID(fmt.Sprintf("p%03d", i)), t0); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestMapEncodingRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 2, 40} {
		t.Run(fmt.Sprint(n, " peers"), func(t *testing.T) {
			m := sampleMap(t, n)
			b, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Map
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got.Leaves(), m.Leaves(), sameLeaf) || got.Epoch() != m.Epoch() || got.Dim() != m.Dim() || got.TTL() != m.TTL() {
				t.Fatalf("decoded map differs:\n%v\nwant\n%v", got.Leaves(), m.Leaves())
			}
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Error("encoding is not canonical")
			}
			t.Logf("%d peers, %d leaves: %d bytes", m.Len(), len(m.Leaves()), len(b))
		})
	}
}

// TestMapDecodeRefusesCorrupt feeds encodings broken in each way the
// decoder must notice.
func TestMapDecodeRefusesCorrupt(t *testing.T) {
	m := sampleMap(t, 6)
	good, _ := m.MarshalBinary()
	// enc writes a map by hand in the first encoding, without points:
	// dim 2, epoch 9, holders a and b.
	enc := func(leaves ...any) []byte {
		b := []byte(mapMagicV1)
		b = binary.AppendUvarint(b, 2)
		b = binary.AppendVarint(b, int64(time.Minute))
		b = binary.AppendUvarint(b, 9)
		b = binary.AppendUvarint(b, 2)
		for _, id := range []string{"a", "b"} {
			b = binary.AppendUvarint(b, uint64(len(id)))
			b = append(b, id...)
			b = binary.AppendVarint(b, t0.UnixNano())
		}
		b = binary.AppendUvarint(b, uint64(len(leaves)/3))
		for i := 0; i < len(leaves); i += 3 {
			p := Path(leaves[i].(string))
			b = binary.AppendUvarint(b, uint64(len(p)))
			b = append(b, packPath(p)...)
			b = binary.AppendUvarint(b, uint64(leaves[i+1].(int)))
			b = binary.AppendUvarint(b, uint64(leaves[i+2].(int)))
		}
		return b
	}
	var valid Map
	if err := valid.UnmarshalBinary(enc("0", 0, 3, "10", 1, 4, "11", 0, 9)); err != nil {
		t.Fatalf("hand-made valid map refused: %v", err)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte("HCZX\x01"), good[5:]...)},
		{"truncated", good[:len(good)-1]},
		{"trailing byte", append(slices.Clone(good), 0)},
		{"gap", enc("0", 0, 3, "10", 1, 4)},
		{"overlap", enc("0", 0, 3, "01", 1, 4, "1", 1, 5)},
		{"not in order", enc("1", 0, 3, "0", 1, 4)},
		{"holder holds both halves", enc("0", 0, 3, "1", 0, 4)},
		{"holder without a leaf", enc("", 0, 3)},
		{"epoch above the counter", enc("0", 0, 3, "1", 1, 10)},
		{"epoch zero", enc("0", 0, 0, "1", 1, 4)},
		{"holder out of range", enc("0", 0, 3, "1", 2, 4)},
		{"huge leaf count", append(enc()[:len(enc())-1], 0xff, 0xff, 0xff, 0xff, 0x0f)},
		{"unused path bits set", func() []byte {
			b := enc("0", 0, 3, "1", 1, 4)
			// The first leaf's packed path byte follows its depth.
			i := bytes.LastIndex(b, []byte{2, 1, 0x00, 0, 3})
			b[i+2] = 0x01
			return b
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Map
			got.dim = -7 // a refused decode leaves the map alone
			err := got.UnmarshalBinary(tc.data)
			t.Log(err)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v, want ErrCorrupt", err)
			}
			if got.dim != -7 {
				t.Error("refused decode changed the map")
			}
		})
	}
}

// FuzzMapUnmarshal checks that the decoder refuses what it cannot use and
// that whatever it accepts is a sound map that encodes back stably.
func FuzzMapUnmarshal(f *testing.F) {
	for _, n := range []int{0, 1, 3, 12} {
		b, _ := sampleMap(f, n).MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Map
		if err := m.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("accepted a broken map: %v", err)
		}
		b, _ := m.MarshalBinary()
		var again Map
		if err := again.UnmarshalBinary(b); err != nil {
			t.Fatalf("own encoding refused: %v", err)
		}
		if !slices.EqualFunc(again.Leaves(), m.Leaves(), sameLeaf) {
			t.Fatal("round trip changed the leaves")
		}
		// An accepted map takes operations.
		if _, err := m.Join("fuzz-joiner", make(Point, m.Dim()), t0); err != nil && !errors.Is(err, ErrTooDeep) && !errors.Is(err, ErrPeerExists) {
			t.Fatalf("join on a decoded map: %v", err)
		}
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
	})
}
