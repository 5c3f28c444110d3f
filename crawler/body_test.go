package crawler

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// readAll returns exactly what it read, in a slice no larger than that
// (a body of unknown size read in pieces), whatever the size and however
// the reader splits it.
func TestReadAllExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, firstPiece - 1, firstPiece, firstPiece + 1, 3*firstPiece + 7, maxPiece + 1, 5*maxPiece + 3} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		got, err := readAll(bytes.NewReader(want), -1)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d bytes, err %v", n, len(got), err)
		}
		if n > firstPiece && cap(got) != n {
			t.Errorf("%d bytes: a slice of capacity %d", n, cap(got))
		}
		got, err = readAll(iotest.OneByteReader(bytes.NewReader(want)), -1)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes a byte at a time: got %d bytes, err %v", n, len(got), err)
		}
		got, err = readAll(bytes.NewReader(want), int64(n))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes with their size known: got %d bytes, err %v", n, len(got), err)
		}
	}
	if _, err := readAll(iotest.ErrReader(iotest.ErrTimeout), -1); err != iotest.ErrTimeout {
		t.Errorf("a failing reader gave %v", err)
	}
}
