package localapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
)

// fakeEvents is a backend with an event log of 3 events.
type fakeEvents struct {
	*fakeBackend
	asked int
}

func (f *fakeEvents) Events(_ context.Context, n int) (EventLog, error) {
	f.asked = n
	all := []Event{{Time: time.Unix(3, 0), Level: "INFO", Message: "c"}, {Message: "b"}, {Message: "a", Attrs: []string{"k=v"}}}
	return EventLog{File: "/state/hivecrawl.log", Events: all[:min(n, len(all))]}, nil
}

func TestEventRoutes(t *testing.T) {
	b := &fakeEvents{fakeBackend: newFake()}
	_, info := start(t, b)
	c, err := Dial(info)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log, err := c.Events(ctx, 2)
	if err != nil || log.File != "/state/hivecrawl.log" || len(log.Events) != 2 || log.Events[0].Message != "c" || b.asked != 2 {
		t.Fatalf("Events(2) = %+v, %v (asked %d)", log, err, b.asked)
	}
	for _, n := range []int{0, MaxEvents + 1} {
		var ae *APIError
		if _, err := c.Events(ctx, n); !errors.As(err, &ae) || ae.Code != 400 {
			t.Errorf("Events(%d) = %v, want 400", n, err)
		}
	}
	// Without an event log there is no route.
	plain, _ := start(t, newFake())
	req, _ := http.NewRequest("GET", plain.URL()+"/api/events", nil)
	req.Header.Set(loopback.TokenHeader, plain.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /api/events without a log: %d", resp.StatusCode)
	}
}
