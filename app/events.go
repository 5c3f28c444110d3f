package app

import (
	"context"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

var _ localapi.Events = (*Client)(nil)

// Events returns up to n of the latest events of the client's log, newest
// first, and where the log file is.
func (c *Client) Events(ctx context.Context, n int) (localapi.EventLog, error) {
	recent := c.events.Recent(n)
	out := localapi.EventLog{File: c.events.Path(), Events: make([]localapi.Event, len(recent))}
	for i, e := range recent {
		out.Events[i] = localapi.Event{Time: e.Time, Level: e.Level, Message: e.Message, Text: e.Sentence(), Attrs: e.Attrs}
	}
	return out, nil
}
