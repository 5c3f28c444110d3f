package queue

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// State is where a task is in its life.
type State string

// The states of a task.
const (
	Queued     State = "queued"
	Running    State = "running"
	Done       State = "done"
	Cancelled  State = "cancelled"
	HandedOver State = "handed over"
	// Offered is a waiting task out of the queue while a neighbour is
	// asked to take it (Offer): it goes back to its place unless the
	// neighbour takes it, and also at the next Open.
	Offered State = "offered"
	// SetAside is a task the client stopped unexpectedly (crashed, or was
	// killed) while crawling, MaxCrashes times in a row: it is not tried
	// again. Reason says so.
	SetAside State = "set aside"
)

// Upload is where a done task's result is on its way to the storage module.
type Upload string

// The upload states of a done task. A task that is not done has UploadNone.
const (
	UploadNone      Upload = ""
	UploadPending   Upload = "pending"
	UploadDelivered Upload = "delivered"
	UploadRecorded  Upload = "recorded"
)

// ReasonExpired is the cancel reason of a task that waited longer than its
// recrawl interval.
const ReasonExpired = "waited longer than its recrawl interval"

// ReasonShared is the reason recorded for a waiting task handed to a peer
// with a crawl thread idle: a neighbour, or one two hops away.
const ReasonShared = "shared with an idle peer"

// Record is one task as the queue stores it.
type Record struct {
	ID string `json:"id"`
	// Raw is the task as it arrived (a signed envelope, later), handed on
	// untouched.
	Raw []byte `json:"raw"`
	// Proof is what shows the manager this peer may claim the task's
	// host lease (p2p/zonecert.Proof, encoded), kept with the task from
	// its arrival; empty in solo mode.
	Proof []byte     `json:"proof,omitempty"`
	Task  *task.Task `json:"task"`
	// Seq orders the queue; a task returned to the queue keeps its Seq.
	Seq      uint64    `json:"seq"`
	State    State     `json:"state"`
	Reason   string    `json:"reason,omitempty"`
	Enqueued time.Time `json:"enqueued"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// Attempts counts how often the task was started; more than one means it
	// was re-executed after a crash.
	Attempts int `json:"attempts,omitempty"`
	// Crashes counts the processes in a row that died processing a page of
	// the task and had got no further in it than Reach.
	Crashes int `json:"crashes,omitempty"`
	// Reach is the most pages any process had crawled of the task
	// (Options.Reached) when it crashed; DiedAt when the crawl last wrote
	// before the last death counted.
	Reach  int       `json:"reach,omitempty"`
	DiedAt time.Time `json:"died_at,omitzero"`
	// Progress is the running task's last checkpoint (the task manager's
	// encoding), kept while it is queued or running so that a restart
	// resumes the crawl instead of starting it again.
	Progress json.RawMessage `json:"progress,omitempty"`

	Result  *task.Result `json:"result,omitempty"`
	Spool   string       `json:"spool,omitempty"`
	Upload  Upload       `json:"upload,omitempty"`
	Receipt []byte       `json:"receipt,omitempty"`
}

// Waited is how long r has been (or was) waiting in the queue at now.
func (r *Record) Waited(now time.Time) time.Duration {
	if !r.Started.IsZero() && r.State != Queued {
		return r.Started.Sub(r.Enqueued)
	}
	return now.Sub(r.Enqueued)
}

// expired reports whether a queued r has waited past its recrawl interval.
func (r *Record) expired(now time.Time) bool {
	iv := time.Duration(r.Task.Interval)
	return iv > 0 && now.Sub(r.Enqueued) > iv
}

func encodeRecord(r *Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", r.ID, err)
	}
	return b, nil
}

// decodeRecord parses a stored record and checks the fields the queue
// relies on, so a damaged file yields ErrCorrupt rather than a panic later.
func decodeRecord(key, b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: task %q: %v", ErrCorrupt, key, err)
	}
	if r.ID != string(key) || r.Task == nil {
		return nil, fmt.Errorf("%w: task %q: record names %q or lacks its task", ErrCorrupt, key, r.ID)
	}
	switch r.State {
	case Queued, Running, Done, Cancelled, HandedOver, SetAside, Offered:
	default:
		return nil, fmt.Errorf("%w: task %q: unknown state %q", ErrCorrupt, key, r.State)
	}
	return &r, nil
}
