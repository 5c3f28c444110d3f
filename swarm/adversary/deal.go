package adversary

import (
	"fmt"
	"slices"
)

// Seat is one cheater's part in the demo: its mode and, for a sybil,
// the pair it is one identity of (numbered from 1; 0 for the other
// modes).
type Seat struct {
	Mode string
	Pair int
}

// Deal hands modes (Modes when empty) out in turn to n cheaters. A
// sybil pair takes two seats, next to each other; where one seat is left
// for it, the next mode takes the seat. It fails on an unknown mode, or
// when n is odd and modes names only sybil.
func Deal(n int, modes []string) ([]Seat, error) {
	if len(modes) == 0 {
		modes = Modes
	}
	for _, m := range modes {
		if !Valid(m) {
			return nil, fmt.Errorf("unknown cheating mode %q (want one of %v)", m, Modes)
		}
	}
	others := slices.ContainsFunc(modes, func(m string) bool { return m != Sybil })
	out := make([]Seat, 0, n)
	pairs := 0
	for k := 0; len(out) < n; k++ {
		switch m := modes[k%len(modes)]; {
		case m != Sybil:
			out = append(out, Seat{Mode: m})
		case n-len(out) >= 2:
			pairs++
			out = append(out, Seat{Mode: Sybil, Pair: pairs}, Seat{Mode: Sybil, Pair: pairs})
		case !others:
			return nil, fmt.Errorf("a sybil pair takes two cheaters: %d cheaters cannot all be sybils", n)
		}
	}
	return out, nil
}
