package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/task"
)

// A volunteer stopped gracefully in the middle of a crawl hands the rest
// on: it uploads the pages up to its last checkpoint as its result, the
// manager issues what was left as a continuation task, and the volunteer
// that takes the host over crawls only that. The site sees at most 1.15
// requests per page, storage holds every page, and the channel's round
// ends with the continuation's result, done by another peer.
func TestHandOffContinuesAtHeir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 3 libp2p hosts")
	}
	const pages = 150
	// Pages slow enough to stop the crawl in its middle.
	srv := newTreeSite(t, pages, 20, 10*time.Millisecond)
	requests := srv.pageRequests

	s := startSwarmWith(t, 2, manager.Options{
		Placement: manager.PlacementOptions{Assignment: manager.AssignCAN},
		Schedule:  manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 20, MaxPerFeedback: -1}},
	})
	s.waitMembers(t)
	if _, err := s.m.AddSeeds([]string{srv.URL + "/p0.html"}); err != nil {
		t.Fatal(err)
	}
	// Stop the volunteer crawling the site once it is well into it.
	crawler := -1
	waitFor(t, 60*time.Second, "a volunteer 40 pages into the site", func() bool {
		if n, _ := requests(); n < 40 {
			return false
		}
		for i, c := range s.clients {
			if st, err := c.Status(context.Background()); err == nil && len(st.Tasks.Running) > 0 {
				crawler = i
				return true
			}
		}
		return false
	})
	first, err := s.clients[crawler].Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	firstID := first.Tasks.Running[0].ID
	s.cancelClient[crawler]()
	if err := <-s.clientsDone[crawler]; err != nil {
		t.Fatalf("stopping the crawling volunteer: %v", err)
	}
	s.clientsDone = append(s.clientsDone[:crawler], s.clientsDone[crawler+1:]...)
	stoppedAt, _ := requests()

	db := s.m.Channels()
	firstRec, err := db.Task(firstID)
	if err != nil {
		t.Fatal(err)
	}
	if firstRec.State != channels.TaskDone {
		t.Fatalf("the stopped volunteer's task is %s, want done with what it crawled", firstRec.State)
	}
	contID := task.ContinuationID(firstID)
	// The channel's task is done before storage commits the pages' index
	// entries with the receipt (Storage.store says why): the pages are
	// all there once the receipt is.
	waitFor(t, 3*time.Minute, "the continuation's result", func() bool {
		rec, err := db.Task(contID)
		_, stored, _ := s.m.Storage().Receipt(contID)
		return err == nil && rec.State == channels.TaskDone && stored
	})
	cont, _ := db.Task(contID)
	if cont.Peer == firstRec.Peer {
		t.Errorf("the continuation was crawled by the volunteer that stopped")
	}
	c, err := db.Get(firstRec.Channel)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pending != 0 || c.Round != firstRec.Round || len(c.Pages) != pages {
		t.Errorf("channel after the continuation: round %d (want %d), %d pending, %d pages known (want %d)",
			c.Round, firstRec.Round, c.Pending, len(c.Pages), pages)
	}
	total, distinct := requests()
	t.Logf("%d page requests for %d pages; %d before the stop; first part by %s, rest by %s", total, pages, stoppedAt, firstRec.Peer, cont.Peer)
	if distinct != pages {
		t.Errorf("%d of %d pages requested", distinct, pages)
	}
	if float64(total) > 1.15*pages {
		t.Errorf("%d requests for %d pages: more than 1.15 per page", total, pages)
	}
	for i := range pages {
		u := fmt.Sprintf("%s/p%d.html", srv.URL, i)
		if _, found, err := s.m.Storage().Lookup(u); err != nil || !found {
			t.Errorf("storage has no copy of %s (%v)", u, err)
		}
	}
}
