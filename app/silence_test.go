package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
)

// TestManagerSilenceIsAReason: once the manager stops answering, the
// volunteer's status says so among its reasons (which the dashboard lists
// and the tray shows), with the time it began; before, the status said
// "running" with nothing to tell why no task came. The renewal every
// entry.RenewEvery (10 s) finds it out; the deadline is a bound for a busy
// machine, and the test logs the time it took.
func TestManagerSilenceIsAReason(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 2 libp2p hosts")
	}
	s := startSwarm(t, 1, time.Hour, manager.AssignCAN)
	s.waitMembers(t)
	c := s.clients[0]
	silent := func() (bool, []string) {
		t.Helper()
		st, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		said := slices.ContainsFunc(st.Reasons, func(r string) bool { return strings.HasPrefix(r, "The manager does not answer (since ") })
		return said && st.Overlay != nil && st.Overlay.ManagerSilent, st.Reasons
	}
	if ok, reasons := silent(); ok || !slices.Contains(reasons, "Idle: no task for this volunteer yet; the manager sends work as sites fall due") {
		t.Fatalf("the manager answers and has no work: reasons %q, want the idle reason alone", reasons)
	}
	s.cancelManager()
	<-s.managerDone
	s.managerDone = nil
	stopped := time.Now()
	waitFor(t, time.Minute, "the manager's silence among the reasons", func() bool { ok, _ := silent(); return ok })
	t.Logf("reason shown %.1f s after the manager stopped", time.Since(stopped).Seconds())
}
