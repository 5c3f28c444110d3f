package swarm

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
	"github.com/hivecrawl/hivecrawl/manager/storage/warciotest"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// TestSharedManagers: two managers share one PostgreSQL database and one
// object store, and run a swarm of 6 clients and 12 web hosts as
// processes. Both send tasks; one is killed mid-round and the other
// carries on: every channel completes a round issued after the kill, no
// host ever sees two crawlers at once, each client's credit is what
// storage credited it, and every WARC record the two wrote is in the
// object store, which warcio reads.
func TestSharedManagers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a swarm of processes")
	}
	const hosts = 12
	dsn := pgtest.Start(t).DSN
	// One object store for both managers' WARC files, small files so
	// they roll and go up while the swarm runs.
	obj := buckettest.Start(t)
	obj.MakeBucket("hivecrawl")
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		t.Setenv(v, obj.Getenv(v))
	}
	s := startSwarm(t, Config{
		Peers: 6, Hosts: hosts, Seed: 21, Managers: 2,
		Web: fixture.DemoOptions{MaxPages: 20},
		ManagerArgs: []string{"--db", dsn, "--store", "s3://hivecrawl/swarm", "--max-warc-file", "20000", "--prior", prior.String(), "--slack", slack.String(),
			"--delay", politeness.String(), "--lease-hold", leaseHold.String(), "--clock-skew", "2s", "--start-within", "1m"},
		Client: func(c *config.Config) { c.Delay = config.Duration(time.Millisecond) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a, b := s.Managers[0], s.Managers[1]

	// Both managers hand out their share of the channels.
	err := poll(ctx, 500*time.Millisecond, func() (bool, error) {
		sa, err := a.Status(ctx)
		if err != nil {
			return false, nil
		}
		sb, err := b.Status(ctx)
		if err != nil {
			return false, nil
		}
		return sa.Sent > 0 && sb.Sent > 0 && sa.Stored.Pages > 0, nil
	})
	if err != nil {
		t.Fatalf("both managers did not send tasks and store pages: %v", err)
	}
	if err := a.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	t.Log("manager a killed")

	// Every channel completes a round issued after the kill: b takes a's
	// share once a's heartbeat is stale, with the host leases where a
	// left them. Read from the shared database itself.
	db, err := channels.OpenPostgres(ctx, dsn, channels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var done, all int
	err = poll(ctx, time.Second, func() (bool, error) {
		chs, err := db.All(0)
		if err != nil {
			return false, err
		}
		done, all = 0, len(chs)
		for _, c := range chs {
			if c.LastSubmit.After(killed) && c.Pending == 0 && !c.LastUpdate.Before(c.LastSubmit) {
				done++
			}
		}
		return all >= hosts && done == all, nil
	})
	if err != nil {
		t.Errorf("%d of %d channels completed a round issued after a manager was killed: %v", done, all, err)
	} else {
		t.Logf("every channel completed a round issued after the kill, %v after it", time.Since(killed).Round(time.Second))
	}
	// Each round was issued once and took at most one result.
	chs, err := db.All(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chs {
		if c.Submitted != c.Round || c.Updates > c.Round {
			t.Errorf("channel %s: round %d, %d rounds submitted, %d results taken", c.ID, c.Round, c.Submitted, c.Updates)
		}
	}

	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	peerOf := map[*Client]string{}
	for _, c := range s.Clients {
		if cs, err := c.Status(cctx); err == nil {
			peerOf[c] = cs.Overlay.Peer
		}
	}
	if err := s.StopClients(cctx); err != nil {
		t.Logf("stop the clients: %v", err)
	}
	web, err := s.Web.Stats(cctx, s.http)
	if err != nil {
		t.Fatal(err)
	}
	checkPolite(t, web, politeness)
	st, err := b.Status(cctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tasks %v, sent by b %d, stored %d pages in %d uploads", st.Tasks, st.Sent, st.Stored.Pages, st.Stored.Uploads)

	// Every WARC record either manager wrote is in the object store once
	// a starts again (it uploads what its kill left behind) and both
	// stop, and warcio reads it.
	if err := a.Start(cctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Managers {
		if err := m.Stop(cctx); err != nil {
			t.Errorf("stop %s: %v", m.Home, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(obj.Root, "hivecrawl", "swarm", "warc", "*.warc.gz"))
	indexes, _ := filepath.Glob(filepath.Join(obj.Root, "hivecrawl", "swarm", "cdxj", "*.cdxj"))
	recs := warciotest.Install(t).Read(t, files...)
	// A manager killed between writing an upload's records and
	// committing its receipt leaves those records in its WARC file
	// uncounted; the volunteer uploads again and they are written again.
	// So every counted record is there, and any beyond the count is a
	// copy of one: as many distinct (target, digest) pairs as counted
	// records at most.
	conversions := 0
	distinct := map[[2]string]bool{}
	for _, r := range recs {
		if r.Declared != "" && r.Declared != r.Computed {
			t.Errorf("%s %s: declared digest %s, warcio computed %s", r.Type, r.Target, r.Declared, r.Computed)
		}
		if r.Type == "conversion" {
			conversions++
			distinct[[2]string{r.Target, r.Computed}] = true
		}
	}
	t.Logf("object store: %d WARC files, %d indexes, %d records, %d conversions of %d distinct pages; storage counted %d",
		len(files), len(indexes), len(recs), conversions, len(distinct), st.Stored.Records)
	if len(indexes) != len(files) {
		t.Errorf("object store holds %d WARC files and %d indexes", len(files), len(indexes))
	}
	if int64(conversions) < st.Stored.Records || int64(len(distinct)) > st.Stored.Records {
		t.Errorf("object store holds %d conversion records of %d distinct pages; storage counted %d records", conversions, len(distinct), st.Stored.Records)
	}
	stored := map[string]float64{}
	for _, c := range st.Contributors {
		stored[c.Peer] = c.Credits
	}
	for _, c := range s.Clients {
		l, err := c.ReadLedger()
		if err != nil {
			t.Fatal(err)
		}
		if p := peerOf[c]; p != "" && stored[p]+1e-6 < l.Credits {
			t.Errorf("%s holds %.3f credits, storage credited it %.3f", c.Name, l.Credits, stored[p])
		}
	}
}
