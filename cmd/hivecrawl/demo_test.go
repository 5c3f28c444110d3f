package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/swarm"
	"github.com/hivecrawl/hivecrawl/swarm/netlab"
)

// TestDemo runs `hivecrawl demo` for a few seconds with a small swarm and
// checks what it prints and that it leaves no process behind.
func TestDemo(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds the binary and runs a swarm")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "demo")
	cmd := exec.Command(bin, "demo", "--peers", "2", "--hosts", "3", "--max-pages", "10", "--duration", "15s", "--dir", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	var managerLine bool
	var volunteers int
	var sum swarm.Summary
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Manager: http://127.0.0.1:"):
			managerLine = true
		case strings.HasPrefix(line, "Volunteer ") && strings.Contains(line, "(127.0."):
			volunteers++
		case strings.HasPrefix(line, "{"):
			if err := json.Unmarshal([]byte(line), &sum); err != nil {
				t.Fatalf("summary %q: %v", line, err)
			}
		}
	}
	if !managerLine || volunteers != 2 {
		t.Fatalf("demo printed manager %v and %d volunteers:\n%s", managerLine, volunteers, out)
	}
	if sum.Peers != 2 || sum.Hosts != 3 || sum.Channels != 3 || sum.MaxClientsPerHost > 1 {
		t.Fatalf("summary %+v, want 2 peers, 3 hosts, 3 channels, at most 1 crawler per host", sum)
	}
	// Every process stopped: none runs with the demo's directory in its
	// command line.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), dir) {
			t.Errorf("a demo process is still running: %s", strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 4 {
		t.Fatalf("%d logs in %s, want web, manager and 2 clients", len(logs), dir)
	}
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if strings.Count(string(b), "=== ") != 1 {
			t.Errorf("%s: started more than once without churn", l)
		}
	}
}

// TestDemoAttackers runs `hivecrawl demo --hijackers 1 --cheaters 3
// --cheat-modes sybil,squat`: one of seven volunteers heartbeats its
// neighbours with forged, tampered and replayed zone certificates and
// reports them to the manager as silent, two are a sybil pair forging
// their results and confirming each other's, one squats the leases of its
// tasks. The hijacker must have tried (certificates and reports sent),
// and got nothing: no honest volunteer believes it holds a zone the
// manager did not grant it, and the manager acted on no false report. The
// cheaters are counted and got nothing either: no forged page accepted,
// no credit confirmed to them, no result of a twin confirmed, no honest
// result rejected. (The run is too short for the manager to end a
// squatted lease, at the first renewal 5 minutes after its claim: the
// real demo's run in docs/developer/validation.md is.)
func TestDemoAttackers(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds the binary and runs a swarm")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "demo")
	cmd := exec.Command(bin, "demo", "--peers", "7", "--hijackers", "1", "--cheaters", "3", "--cheat-modes", "sybil,squat",
		"--hosts", "10", "--max-pages", "10", "--duration", "40s", "--dir", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	var sum swarm.Summary
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &sum); err != nil {
				t.Fatalf("summary %q: %v", line, err)
			}
		}
	}
	h := sum.Hijack
	switch {
	case h == nil:
		t.Fatalf("no hijack summary:\n%s", out)
	case h.Hijackers != 1 || h.Forged == 0 || h.Tampered == 0 || h.Reports == 0:
		t.Fatalf("the hijacker did not try: %+v", *h)
	case h.ZonesHeld != 0 || h.ReportsTaken != 0:
		t.Fatalf("the hijacker got something: %+v", *h)
	}
	t.Logf("hijacker: %+v; %d of %d channels crawled", *h, sum.ChannelsCrawled, sum.Channels)
	v := sum.Validation
	if v == nil || v.Sybil == nil || v.Squat == nil {
		t.Fatalf("no sybil or squat figures in the summary:\n%s", out)
	}
	b, _ := json.Marshal(v)
	t.Logf("validation: %s", b)
	if v.Cheaters != 3 || v.CheatModes["sybil"] != 2 || v.CheatModes["squat"] != 1 || v.Sybil.Pairs != 1 || v.Squat.Squatters != 1 {
		t.Fatalf("cheaters %d (%v), %d sybil pairs, %d squatters; want a sybil pair and a squatter", v.Cheaters, v.CheatModes, v.Sybil.Pairs, v.Squat.Squatters)
	}
	if v.ForgedPagesAccepted != 0 || v.CreditConfirmedToCheaters != 0 || v.Sybil.Confirmed != 0 || v.HonestResultsRejected != 0 {
		t.Errorf("%d forged pages accepted, %.2f credit confirmed to cheaters, %d of a twin's results confirmed, %d honest results rejected; want 0 each",
			v.ForgedPagesAccepted, v.CreditConfirmedToCheaters, v.Sybil.Confirmed, v.HonestResultsRejected)
	}
	if v.ValidationFetches == 0 {
		// Zeros above mean nothing unless checks ran: with every
		// volunteer on one network, the manager sent none.
		t.Errorf("no spot-check fetched a page: validation did not run")
	}
	if v.Squat.EndedByManager > v.Squat.Leases || v.Squat.HostsUncrawled > v.Squat.Hosts {
		t.Errorf("squat figures do not add up: %+v", *v.Squat)
	}
}

// TestDemoNAT runs `hivecrawl demo --nat --peers 8 --hosts 20` as the
// README gives it: it must end by itself with every channel crawled,
// every volunteer behind a NAT an overlay member, connections through
// both NATs between the port-restricted homes and relayed ones where a
// symmetric NAT is in the way.
func TestDemoNAT(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds the binary and runs a swarm")
	}
	if err := netlab.Available(); err != nil {
		t.Skip(err)
	}
	// swarm's TestNAT runs the same swarm in every test run; this
	// one, the command line around it, on demand: two NAT labs beside the
	// rest of the suite starve each other on 2 cores (once the demo had
	// not ended after 8 minutes, where alone it ends in under 2).
	if os.Getenv("HIVECRAWL_DEMO_NAT") == "" {
		t.Skip("set HIVECRAWL_DEMO_NAT=1 to run demo --nat here (swarm TestNAT runs its swarm)")
	}
	bin := buildBinary(t)
	// A demo that does not end by itself is stopped as Ctrl-C would,
	// and prints its summary then.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "demo", "--nat", "--peers", "8", "--hosts", "20", "--max-pages", "40", "--dir", filepath.Join(t.TempDir(), "demo"))
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	var sum swarm.Summary
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &sum); err != nil {
				t.Fatalf("summary %q: %v", line, err)
			}
		}
	}
	b, _ := json.Marshal(sum.NAT)
	t.Logf("%d of %d channels crawled in %.0f s; nat: %s", sum.ChannelsCrawled, sum.Channels, sum.Seconds, b)
	if sum.Channels != 20 || sum.ChannelsCrawled != sum.Channels {
		t.Errorf("%d of %d channels crawled, want all 20", sum.ChannelsCrawled, sum.Channels)
	}
	n := sum.NAT
	if n == nil {
		t.Fatalf("no NAT figures in the summary:\n%s", out)
	}
	if n.BehindNAT != 5 || n.Members != 5 || n.ByKind["port-restricted"] != 3 || n.ByKind["symmetric"] != 2 {
		t.Errorf("%d behind NATs (%v), %d of them members; want 5 (3 port-restricted, 2 symmetric), all members", n.BehindNAT, n.ByKind, n.Members)
	}
	if n.HolePunched == 0 || n.Relayed == 0 {
		t.Errorf("%d connections through both NATs (hole-punched) and %d relayed; want both", n.HolePunched, n.Relayed)
	}
	// What sites see, whoever crawls them through whichever NAT.
	if sum.MaxClientsPerHost > 1 || sum.MaxConnsPerHost > 1 || sum.MaxInFlightPerHost > 1 {
		t.Errorf("a host saw %d crawlers, %d connections and %d requests at once", sum.MaxClientsPerHost, sum.MaxConnsPerHost, sum.MaxInFlightPerHost)
	}
	if sum.MinGapMs != nil && *sum.MinGapMs < 250 {
		t.Errorf("requests %.0f ms apart at %s (%s), under the volunteers' 250 ms wait", *sum.MinGapMs, sum.MinGapHost, sum.MinGapAt)
	}
}
