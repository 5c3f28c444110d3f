package localapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
)

// Events is what the server needs from a client that keeps an event log;
// when the backend implements it the server answers GET /api/events.
type Events interface {
	// Events returns up to n of the latest events, newest first.
	Events(ctx context.Context, n int) (EventLog, error)
}

// EventLog is the answer to GET /api/events.
type EventLog struct {
	// File is where the log is written ("" when it is kept in memory only).
	File   string  `json:"file"`
	Events []Event `json:"events"`
}

// Event is one line of the event log.
type Event struct {
	Time    time.Time `json:"time"`
	Level   string    `json:"level"`
	Message string    `json:"message"`
	// Text is the event in a plain sentence (eventlog.Event's Sentence);
	// Message and Attrs are its details, as the log file has them.
	Text  string   `json:"text,omitempty"`
	Attrs []string `json:"attrs,omitempty"`
}

// MaxEvents bounds the events one request returns.
const MaxEvents = 500

func (s *Server) eventRoutes() {
	ev, ok := s.backend.(Events)
	if !ok {
		return
	}
	s.mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		n, ok := countParam(w, r, 100, MaxEvents)
		if !ok {
			return
		}
		log, err := ev.Events(r.Context(), n)
		if err != nil {
			s.fail(w, err)
			return
		}
		if log.Events == nil {
			log.Events = []Event{}
		}
		httpjson.WriteIndented(w, http.StatusOK, log)
	})
}

// Events returns up to n of the running client's latest events.
func (c *Client) Events(ctx context.Context, n int) (EventLog, error) {
	var log EventLog
	err := c.do(ctx, http.MethodGet, "/api/events?n="+strconv.Itoa(n), nil, "", &log)
	return log, err
}
