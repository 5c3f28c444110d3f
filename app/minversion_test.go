package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/tray"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestMinClientVersion: a manager with --min-client-version 0.3.0 and two
// volunteers, 0.2.9 and 0.3.0. The older one never joins the overlay nor
// crawls a page, and its status (hence hivecrawl status, the dashboard and
// the tray) says why and how to update; the other crawls every channel.
func TestMinClientVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 3 libp2p hosts and 6 web hosts")
	}
	ctx := context.Background()
	const hint = "see https://hivecrawl.example/download"
	versions := []string{"0.2.9", "0.3.0"}
	s := startTunedSwarm(t, len(versions), manager.Options{
		Admission: manager.AdmissionOptions{MinClientVersion: "0.3.0", UpdateHint: hint},
		Schedule:  manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 3, MaxPerFeedback: -1}},
	}, func(i int, o *Options) { o.Version = versions[i] })
	old, current := s.clients[0], s.clients[1]

	status := func(c *Client) localapi.Status { return statusOf(ctx, t, c) }
	waitFor(t, 60*time.Second, "the outdated client's status to say why", func() bool {
		st := status(old)
		return len(st.Reasons) > 0 && strings.Contains(st.Reasons[0], "0.3.0")
	})
	waitFor(t, 60*time.Second, "the current client to join", func() bool {
		st := status(current)
		return st.Overlay != nil && st.Overlay.Member
	})

	if _, err := s.m.AddSeeds(serveSites(t, "minver", 6, 3)); err != nil {
		t.Fatal(err)
	}
	waitCrawled(t, s.m, 90*time.Second, 1)
	waitFor(t, 60*time.Second, "the current client's pages to count", func() bool { return status(current).Pages.Total > 0 })

	st := status(old)
	if st.State != "paused" || !strings.Contains(st.Reasons[0], "0.2.9") || !strings.Contains(st.Reasons[0], hint) {
		t.Errorf("outdated client's state %q, reasons %q; want paused, naming its version, the minimum and the update hint", st.State, st.Reasons)
	}
	if st.Overlay == nil || st.Overlay.Member || len(st.Overlay.Zones) > 0 {
		t.Errorf("outdated client's overlay %+v, want no membership and no zone", st.Overlay)
	}
	if st.Pages.Total != 0 || len(st.Tasks.Running) != 0 || st.Tasks.Queued != 0 {
		t.Errorf("outdated client: %d pages, %d running, %d queued; want no task", st.Pages.Total, len(st.Tasks.Running), st.Tasks.Queued)
	}
	if v := tray.ViewOf(st, nil); !strings.Contains(v.Title, "0.3.0") || !strings.Contains(v.Tooltip, hint) {
		t.Errorf("tray shows %q / %q, want the reason", v.Title, v.Tooltip)
	}
	if cur := status(current); cur.State == "paused" || slices.ContainsFunc(cur.Reasons, func(r string) bool { return strings.Contains(r, "0.3.0") || strings.Contains(r, "version") }) {
		t.Errorf("current client's state %q, reasons %q; want none about its version", cur.State, cur.Reasons)
	}
}

// TestMinClientVersionRaised: the operator restarts the manager with a
// minimum above a member's version. The member, told so at its next
// renewal, leaves the overlay and hands its zones over; the other member
// then holds the whole space and crawls every channel alone.
func TestMinClientVersionRaised(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 3 libp2p hosts twice and 4 web hosts")
	}
	ctx := context.Background()
	versions := []string{"0.2.0", "0.3.0"}
	mo := manager.Options{Admission: manager.AdmissionOptions{MinClientVersion: "0.1.0"}, Schedule: manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 3, MaxPerFeedback: -1}}}
	s := startTunedSwarm(t, len(versions), mo, func(i int, o *Options) { o.Version = versions[i] })
	old, current := s.clients[0], s.clients[1]
	s.waitMembers(t)

	// The same data directory and address, a higher minimum.
	addrs := s.m.Host().AddrInfo().Addrs
	dir := s.m.Dir()
	s.cancelManager()
	if err := <-s.managerDone; err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	mo.Dir, mo.AllowLoopback, mo.Admission.MinClientVersion = dir, true, "0.3.0"
	mo.Schedule.Tick, mo.Logger, mo.Politeness.Delay = 300*time.Millisecond, quiet, 20*time.Millisecond
	for _, a := range addrs {
		mo.Listen = append(mo.Listen, a.String())
	}
	mgr, err := manager.New(mctx, mo)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s.m, s.cancelManager, s.managerDone = mgr, cancel, make(chan error, 1)
	go func() { s.managerDone <- mgr.Serve(mctx) }()

	status := func(c *Client) localapi.Status { return statusOf(ctx, t, c) }
	waitFor(t, 90*time.Second, "the outdated member to leave and say why", func() bool {
		st := status(old)
		return st.State == "paused" && len(st.Reasons) > 0 && strings.Contains(st.Reasons[0], "0.3.0") &&
			st.Overlay != nil && !st.Overlay.Member && len(st.Overlay.Zones) == 0
	})
	if !strings.Contains(status(old).Reasons[0], "restart Hivecrawl") {
		t.Errorf("outdated member's reason %q does not say to restart after updating", status(old).Reasons[0])
	}
	if _, err := s.m.AddSeeds(serveSites(t, "raised", 4, 3)); err != nil {
		t.Fatal(err)
	}
	waitCrawled(t, s.m, 90*time.Second, 1)
	if st := status(old); st.Pages.Total != 0 {
		t.Errorf("outdated member crawled %d pages", st.Pages.Total)
	}
	if st := status(current); st.Overlay == nil || !st.Overlay.Member {
		t.Errorf("current member's overlay %+v, want a member", st.Overlay)
	}
}

// statusOf is c's status, failing t when the client does not answer.
func statusOf(ctx context.Context, t *testing.T, c *Client) localapi.Status {
	t.Helper()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
