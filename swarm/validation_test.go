package swarm

import (
	"reflect"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
)

// TestSybilSummary counts the attack as made: checks sent with a twin's
// pages, and what became of the twin's results; a pair whose twin was
// never drawn reads 0 sent, not a success.
func TestSybilSummary(t *testing.T) {
	vs := []storage.Verdict{
		{Task: "a/1/0", Verdict: storage.VerdictInvalid},
		{Task: "b/1/0", Verdict: storage.VerdictValid},
		{Task: "c/1/0", Verdict: storage.VerdictValid, Untold: true},
	}
	tests := []struct {
		name string
		cs   []adversary.Confirmation
		want SybilSummary
	}{
		{"never drawn", nil, SybilSummary{Pairs: 1}},
		{"each verdict", []adversary.Confirmation{
			{Check: "check/1/1", Of: "a/1/0", Pages: 3},
			{Check: "check/1/2", Of: "a/1/0", Pages: 1},
			{Check: "check/2/1", Of: "b/1/0", Pages: 2},
			{Check: "check/3/1", Of: "c/1/0", Pages: 2},
			{Check: "check/4/1", Of: "d/1/0", Pages: 2},
		}, SybilSummary{Pairs: 1, ChecksSent: 5, Revoked: 1, Confirmed: 1, Undecided: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sybilSummary(1, tt.cs, vs); !reflect.DeepEqual(*got, tt.want) {
				t.Fatalf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestSquatSummary: the leases the manager ended and how long each was
// held, and the squatted hosts with no result at the end.
func TestSquatSummary(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	sq := []adversary.Squatted{
		{Task: "a/1/0", Host: "a", Claimed: t0, Ended: t0.Add(400 * time.Second), ByManager: true},
		{Task: "b/1/0", Host: "b", Claimed: t0, Ended: t0.Add(410 * time.Second), ByManager: true},
		{Task: "c/1/0", Host: "c", Claimed: t0, Ended: t0.Add(30 * time.Second)}, // the run ended
		{Task: "a/2/0", Host: "a", Claimed: t0.Add(time.Hour)},                   // still held
	}
	rep := ChannelReport{Channels: []channels.Channel{{ID: "a", Updates: 1}, {ID: "b"}, {ID: "c", Updates: 2}}}
	got := squatSummary(2, sq, rep)
	want := SquatSummary{Squatters: 2, Leases: 4, EndedByManager: 2, HeldSeconds: [3]float64{400, 405, 410}, Hosts: 3, HostsUncrawled: 1}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("got %+v, want %+v", *got, want)
	}
}
