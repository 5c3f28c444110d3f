package adversary

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDeal: modes are handed out in turn, a sybil pair takes two seats
// next to each other, and a seat too few for a pair goes to the next
// mode.
func TestDeal(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		modes []string
		want  []Seat
		err   bool
	}{
		{name: "two by default", n: 2, want: []Seat{{Mode: Invent}, {Mode: Alter}}},
		{name: "every mode", n: 10, want: []Seat{{Mode: Invent}, {Mode: Alter}, {Mode: Inflate}, {Mode: Replay}, {Mode: Foreign},
			{Mode: Partial}, {Mode: Subtle}, {Mode: Squat}, {Mode: Sybil, Pair: 1}, {Mode: Sybil, Pair: 1}}},
		{name: "one seat left for a pair", n: 9, want: []Seat{{Mode: Invent}, {Mode: Alter}, {Mode: Inflate}, {Mode: Replay}, {Mode: Foreign},
			{Mode: Partial}, {Mode: Subtle}, {Mode: Squat}, {Mode: Invent}}},
		{name: "chosen modes", n: 5, modes: []string{Sybil, Squat}, want: []Seat{{Mode: Sybil, Pair: 1}, {Mode: Sybil, Pair: 1}, {Mode: Squat}, {Mode: Sybil, Pair: 2}, {Mode: Sybil, Pair: 2}}},
		{name: "chosen modes, one seat left", n: 4, modes: []string{Sybil, Squat}, want: []Seat{{Mode: Sybil, Pair: 1}, {Mode: Sybil, Pair: 1}, {Mode: Squat}, {Mode: Squat}}},
		{name: "sybils only", n: 4, modes: []string{Sybil}, want: []Seat{{Mode: Sybil, Pair: 1}, {Mode: Sybil, Pair: 1}, {Mode: Sybil, Pair: 2}, {Mode: Sybil, Pair: 2}}},
		{name: "odd sybils", n: 3, modes: []string{Sybil}, err: true},
		{name: "unknown mode", n: 1, modes: []string{"bribe"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n
			got, err := Deal(n, tt.modes)
			if (err != nil) != tt.err {
				t.Fatalf("Deal(%d, %v) error %v, want error %v", n, tt.modes, err, tt.err)
			}
			if !tt.err && !slices.Equal(got, tt.want) {
				t.Fatalf("Deal(%d, %v) = %v, want %v", n, tt.modes, got, tt.want)
			}
		})
	}
}

// TestReadJSONLLeavesTornLine: a last line without its newline is an
// append under way (the twin writing its forged pages as the sybil
// reads them): left for the next read, not an error.
func TestReadJSONLLeavesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte("{\"check\":\"a\"}\n\n{\"check\":\"b\"}\n{\"check\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONL[Confirmation](path)
	if err != nil || len(got) != 2 || got[1].Check != "b" {
		t.Fatalf("ReadJSONL = %+v, %v; want the two whole lines", got, err)
	}
}
