package can

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func benchMap(b *testing.B, n int) (*Map, *rand.Rand) {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	o := NewMap(3, time.Hour)
	for i := range n {
		if _, err := o.Join(PeerID(fmt.Sprintf("p%05d", i)), randPoint(r, 3), t0); err != nil {
			b.Fatal(err)
		}
	}
	return o, r
}

func BenchmarkRoute1400(b *testing.B) {
	o, r := benchMap(b, 1400)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Route(o.Holders()[r.IntN(o.Len())], randPoint(r, 3)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChurn1400(b *testing.B) {
	o, r := benchMap(b, 1400)
	next := 1400
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Leave(o.Holders()[r.IntN(o.Len())], t0); err != nil {
			b.Fatal(err)
		}
		if _, err := o.Join(PeerID(fmt.Sprintf("p%05d", next)), randPoint(r, 3), t0); err != nil {
			b.Fatal(err)
		}
		next++
	}
}
