// Package eventlog keeps the client's event log: every record at Info
// level and above, written to a rotating file under the state directory
// and kept in memory, the latest few hundred, for the dashboard's event
// view. Debug records go only where the caller's own handler sends them.
//
// The client logs one line per change of state (a task started or done, a
// pause for load begun or ended, a channel added or removed), never one
// per second, so the file stays readable and small: it rotates at
// MaxSizeMB and keeps Backups compressed old files.
package eventlog

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Defaults of the file's rotation and the memory's size.
const (
	MaxSizeMB = 5
	Backups   = 3
	Keep      = 500
)

// Event is one record as the dashboard shows it.
type Event struct {
	Time    time.Time `json:"time"`
	Level   string    `json:"level"`
	Message string    `json:"message"`
	// Attrs are the record's attributes as "key=value" texts, groups
	// joined with dots.
	Attrs []string `json:"attrs,omitempty"`
}

// Log is an open event log. Safe for concurrent use.
type Log struct {
	path string
	file *lumberjack.Logger

	mu sync.Mutex // guards ring and added
	// ring holds the latest Keep events: event k (counted from 0) at
	// k % Keep.
	ring  []Event
	added int
}

// Open opens (creating its directory) the log file at path. An empty path
// keeps the events in memory only.
func Open(path string) (*Log, error) {
	l := &Log{path: path}
	if path == "" {
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("event log: %w", err)
	}
	// Opened here, not at the first write, so a directory that cannot be
	// written is found at start.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("event log: %w", err)
	}
	f.Close()
	l.file = &lumberjack.Logger{Filename: path, MaxSize: MaxSizeMB, MaxBackups: Backups, Compress: true}
	return l, nil
}

// Path is the log file's name ("" when in memory only).
func (l *Log) Path() string { return l.path }

// Close closes the file.
func (l *Log) Close() error {
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// Handler returns a handler that sends each record to next, and the
// records at Info and above to the file and the memory too.
func (l *Log) Handler(next slog.Handler) slog.Handler {
	hs := []slog.Handler{next, &memHandler{log: l}}
	if l.file != nil {
		hs = append(hs, slog.NewTextHandler(l.file, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.NewMultiHandler(hs...)
}

// Recent returns up to n of the latest events, newest first.
func (l *Log) Recent(n int) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Event, min(n, len(l.ring)))
	for i := range out {
		out[i] = l.ring[(l.added-1-i)%Keep]
	}
	return out
}

func (l *Log) add(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ring) < Keep {
		l.ring = append(l.ring, e)
	} else {
		l.ring[l.added%Keep] = e
	}
	l.added++
}

// memHandler keeps records at Info and above in the log's memory.
type memHandler struct {
	log    *Log
	attrs  []string // from WithAttrs, already prefixed
	prefix string   // the groups from WithGroup, "a.b."
}

func (h *memHandler) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelInfo }

func (h *memHandler) Handle(_ context.Context, r slog.Record) error {
	e := Event{Time: r.Time, Level: r.Level.String(), Message: r.Message, Attrs: slices.Clone(h.attrs)}
	r.Attrs(func(a slog.Attr) bool {
		e.Attrs = appendAttr(e.Attrs, h.prefix, a)
		return true
	})
	h.log.add(e)
	return nil
}

func (h *memHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := &memHandler{log: h.log, prefix: h.prefix, attrs: slices.Clone(h.attrs)}
	for _, a := range as {
		n.attrs = appendAttr(n.attrs, h.prefix, a)
	}
	return n
}

func (h *memHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &memHandler{log: h.log, attrs: h.attrs, prefix: h.prefix + name + "."}
}

// appendAttr adds a as "key=value" texts, a group's members one by one.
func appendAttr(out []string, prefix string, a slog.Attr) []string {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range v.Group() {
			out = appendAttr(out, prefix, g)
		}
		return out
	}
	if a.Equal(slog.Attr{}) {
		return out
	}
	return append(out, prefix+a.Key+"="+v.String())
}
