// Package adversary is the demo's dishonest volunteers as the demo sees
// them: the ways they cheat, how `hivecrawl demo --cheaters` deals the
// ways out, and the records each writes in its data directory so that
// the demo can count what the operator let through.
//
// The volunteers themselves are test kit code (testkit/cheat,
// testkit/hijack) and ship in no installed program: only a program built
// with them (`go build -tags adversary ./cmd/hivecrawl`) can run one.
//
// The modes of cheating:
//
//   - invent: the result's pages replaced by pages that do not exist on the
//     host, with made-up text;
//   - alter: a real crawl whose text was changed before upload;
//   - inflate: the real pages' text claimed again under many URLs that do
//     not exist, and the counts inflated, for more credit;
//   - replay: the pages of an earlier result (another host's) uploaded as
//     this task's result;
//   - foreign: the real result uploaded from another identity, one that
//     does not hold the task (a peer stealing results);
//   - partial: a real crawl with one page in ten (at least one) replaced
//     by an invented one, for most of the credit at a small risk;
//   - subtle: a real crawl with a spam sentence and its link inserted in
//     every page, the rest of the text as the site serves it;
//   - squat: no crawl at all: it claims the lease of every task it gets
//     and renews it showing no progress, to keep the host from everyone
//     else;
//   - sybil: one of two identities of one cheater, sharing a directory:
//     each alters its own results as alter mode does, and confirms its
//     twin's forged pages when it is drawn to spot-check them.
//
// A zone hijacker (`hivecrawl demo --hijackers`) is a member that tries
// to take its neighbours' zones; it writes its counts to HijackFile.
package adversary

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Modes of cheating.
const (
	Invent  = "invent"
	Alter   = "alter"
	Inflate = "inflate"
	Replay  = "replay"
	Foreign = "foreign"
	Partial = "partial"
	Subtle  = "subtle"
	Squat   = "squat"
	Sybil   = "sybil"
)

// Modes lists every mode, in the order the demo hands them out (Deal).
var Modes = []string{Invent, Alter, Inflate, Replay, Foreign, Partial, Subtle, Squat, Sybil}

// Valid reports whether mode names a mode.
func Valid(mode string) bool { return slices.Contains(Modes, mode) }

// LogFile is the file, in a cheater's data directory, listing the forged
// pages: one JSON Forged per line.
const LogFile = "forged.jsonl"

// Forged is one page a cheater uploaded that is not the page the web
// serves at its URL.
type Forged struct {
	Mode string `json:"mode"`
	Task string `json:"task"`
	URL  string `json:"url"`
}

// ReadLog returns the forged pages listed in the LogFile of data
// directory dir (none when there is no file).
func ReadLog(dir string) ([]Forged, error) {
	return ReadJSONL[Forged](filepath.Join(dir, LogFile))
}

// SquatLog is the file, in a squatter's data directory, listing the
// leases it held: a JSON Squatted per line, once when the lease was
// claimed and again when it ended.
const SquatLog = "squat.jsonl"

// Squatted is one lease a squatter held.
type Squatted struct {
	Task    string    `json:"task"`
	Host    string    `json:"host"`
	Claimed time.Time `json:"claimed"`
	// Ended is when the lease ended, zero while it is held; Cause why.
	// ByManager is set when the manager ended it (a renewal refused), as
	// opposed to the squatter stopping.
	Ended     time.Time `json:"ended,omitzero"`
	Cause     string    `json:"cause,omitempty"`
	ByManager bool      `json:"by_manager,omitempty"`
}

// Held returns how long the lease was held, or 0 while it is.
func (s Squatted) Held() time.Duration {
	if s.Ended.IsZero() {
		return 0
	}
	return s.Ended.Sub(s.Claimed)
}

// ReadSquats returns the leases listed in the SquatLog of data directory
// dir, each as it was last written, in the order they were claimed.
func ReadSquats(dir string) ([]Squatted, error) {
	recs, err := ReadJSONL[Squatted](filepath.Join(dir, SquatLog))
	if err != nil {
		return nil, err
	}
	var out []Squatted
	at := map[string]int{}
	for _, r := range recs {
		if i, ok := at[r.Task]; ok {
			out[i] = r
			continue
		}
		at[r.Task] = len(out)
		out = append(out, r)
	}
	return out, nil
}

// SybilLog is the file, in a sybil's data directory, listing the
// spot-checks in which it confirmed its twin's forged pages: one JSON
// Confirmation per line.
const SybilLog = "sybil.jsonl"

// Confirmation is one spot-check a sybil answered with its twin's
// forged pages instead of the pages the web served.
type Confirmation struct {
	// Check is the spot-check task, Of the twin's task whose result it
	// checked, Pages how many of the twin's forged pages it confirmed.
	Check string `json:"check"`
	Of    string `json:"of"`
	Pages int    `json:"pages"`
}

// ReadConfirmations returns the spot-checks listed in the SybilLog of
// data directory dir (none when there is no file).
func ReadConfirmations(dir string) ([]Confirmation, error) {
	return ReadJSONL[Confirmation](filepath.Join(dir, SybilLog))
}

// HijackFile is a zone hijacker's counts file in its data directory.
const HijackFile = "hijack.json"

// HijackCounts is what a zone hijacker tried and got.
type HijackCounts struct {
	// Claims are the forged, tampered and replayed certificates sent.
	Forged, Tampered, Replayed int64
	// Reports are the neighbours reported silent right after they
	// answered the hijacker's heartbeat. ReportsTaken are those the
	// manager removed that still answered a heartbeat right after (a
	// live peer evicted on a lie); ReportsOfGone those it removed that
	// did not (the neighbour had died meanwhile: the report was true).
	Reports, ReportsTaken, ReportsOfGone int64
}

// ReadHijack reads the counts a hijacker wrote in data directory dir.
func ReadHijack(dir string) (HijackCounts, error) {
	var c HijackCounts
	b, err := os.ReadFile(filepath.Join(dir, HijackFile))
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// AppendJSONL appends each of lines to the file at path as a line of
// JSON, in one write.
func AppendJSONL(path string, lines []any) error {
	var b []byte
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b = append(append(b, j...), '\n')
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadJSONL reads the file at path, a JSON T per line (none when there
// is no file). A last line without its newline is an append still under
// way (AppendJSONL writes whole lines), and is left for the next read.
func ReadJSONL[T any](path string) ([]T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	for line := range strings.Lines(string(b)) {
		if !strings.HasSuffix(line, "\n") {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		out = append(out, v)
	}
	return out, nil
}
