package recrawl

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSnapshotRestore(t *testing.T) {
	// Run the "load-only" ICR script's first round, snapshot through JSON,
	// restore into a fresh ICR and run round 2 there: the result must equal
	// the uninterrupted run's [50, 90] (see TestICRReassign).
	round1 := script(
		subs(0, 20, 0), repeat(suc(0, 50), 20),
		subs(10, 25, 0), repeat(suc(10, 50), 20), fails(10, 5, 60, FailExpired),
		reassign(100))
	round2 := script(
		subs(0, 10, 100), repeat(suc(0, 120), 8), fails(0, 2, 130, FailLost),
		subs(10, 10, 100), repeat(suc(10, 120), 10))
	a, err := NewICR(icrChannels(), Config{Groups: 2}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	play(a, round1)
	play(a, round2[:15]) // part of round 2 before the restart
	raw, err := json.Marshal(a.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	b, err := NewICR(icrChannels(), Config{Groups: 2}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	got := play(b, script(round2[15:], reassign(150)))
	checkRounds(t, got, [][]time.Duration{mins(50, 90)})
}

func TestRestoreRestoresTrigger(t *testing.T) {
	chans := channels(0, 60, 0, 60, 1, 120)
	a, _ := NewIIR(chans, Config{Groups: 2}, epoch)
	play(a, repeat(suc(0, 1), 6))
	b, _ := NewIIR(chans, Config{Groups: 2}, epoch)
	if err := b.Restore(a.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if !b.Due(at(2)) {
		t.Error("restored strategy lost its trigger count")
	}
}

func TestRestoreRefusesMismatch(t *testing.T) {
	a, _ := NewIIR(channels(0, 60, 1, 120), Config{Groups: 2}, epoch)
	b, _ := NewIIR(channels(0, 60, 1, 120, 2, 240), Config{Groups: 3}, epoch)
	if err := b.Restore(a.Snapshot()); err == nil {
		t.Error("restored a 2-group snapshot into 3 groups")
	}
	c, _ := NewIIR(channels(0, 60), Config{Groups: 2}, epoch)
	if err := c.Restore(a.Snapshot()); err == nil {
		t.Error("restored 2 channels' histories into 1")
	}
}
