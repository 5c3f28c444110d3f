package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// API is what the notifier reads from the client's local API;
// *localapi.Client has these methods.
type API interface {
	Status(ctx context.Context) (localapi.Status, error)
	Config(ctx context.Context) (json.RawMessage, error)
}

var _ API = (*localapi.Client)(nil)

// Sender shows a message on the desktop.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// DefaultInterval is how often the notifier reads the status.
const DefaultInterval = 15 * time.Second

// Options configure a Notifier. API and Sender are required.
type Options struct {
	API    API
	Sender Sender
	// StateFile keeps what was told across restarts; "" = memory only.
	StateFile string
	Interval  time.Duration    // default DefaultInterval
	Now       func() time.Time // default time.Now
	Logger    *slog.Logger
}

// Notifier runs Rules against the local API.
type Notifier struct {
	opts  Options
	rules Rules
}

// New returns a notifier; a damaged state file is reported and ignored (the
// rules then start afresh, announcing nothing already achieved).
func New(opts Options) (*Notifier, error) {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	n := &Notifier{opts: opts}
	if opts.StateFile != "" {
		st, err := LoadState(opts.StateFile)
		if err != nil {
			return n, err
		}
		n.rules.State = st
	}
	return n, nil
}

// Serve checks the status every Interval until ctx ends.
func (n *Notifier) Serve(ctx context.Context) error {
	t := time.NewTicker(n.opts.Interval)
	defer t.Stop()
	for {
		n.Check(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Check reads the status and switches once and sends what the rules say.
func (n *Notifier) Check(ctx context.Context) {
	st, err := n.opts.API.Status(ctx)
	if ctx.Err() != nil {
		return
	}
	sw := config.Default().Notifications
	if err == nil {
		var cfg struct {
			Notifications config.Notifications `json:"notifications"`
		}
		raw, cerr := n.opts.API.Config(ctx)
		if cerr == nil {
			cerr = json.Unmarshal(raw, &cfg)
		}
		if cerr != nil {
			n.opts.Logger.Debug("Cannot read the notification switches", "err", cerr)
			return
		}
		sw = cfg.Notifications
	}
	before := n.rules.State
	msgs := n.rules.Observe(n.opts.Now(), st, err, sw)
	for _, m := range msgs {
		if err := n.opts.Sender.Send(ctx, m); err != nil {
			n.opts.Logger.Warn("Cannot show a notification", "kind", m.Kind, "err", err)
		}
	}
	if n.opts.StateFile != "" && changed(before, n.rules.State) {
		if err := SaveState(n.opts.StateFile, n.rules.State); err != nil {
			n.opts.Logger.Warn("Cannot keep the notifications' state", "err", err)
		}
	}
}

func changed(a, b State) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) != string(y)
}

// LoadState reads a state file; a missing file is a fresh State.
func LoadState(path string) (State, error) {
	var st State
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read notifications state: %w", err)
	}
	if err := ParseState(data, &st); err != nil {
		return State{}, fmt.Errorf("notifications state %s: %w", path, err)
	}
	return st, nil
}

// ParseState decodes a state file's bytes into st.
func ParseState(data []byte, st *State) error {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if s.Milestone < 0 || len(s.Sent) > 1000 || len(s.Problems) > 1000 {
		return errors.New("values out of range")
	}
	*st = s
	return nil
}

// SaveState writes st to path atomically.
func SaveState(path string, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode notifications state: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write notifications state: %w", err)
	}
	return nil
}
