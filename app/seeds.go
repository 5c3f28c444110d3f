package app

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hivecrawl/hivecrawl/crawler/urls"

	"github.com/hivecrawl/hivecrawl/task"
)

// Seed is one line of a seeds file.
type Seed struct {
	URL *url.URL
	// Prefix is the URL up to its directory: the channel crawled.
	Prefix string
}

// maxSeedsFile bounds a seeds file read into memory.
const maxSeedsFile = 16 << 20

// ParseSeeds parses a seeds file: one absolute http(s) URL per line; blank
// lines and lines starting with # are ignored. URLs are canonicalised as
// the crawler does. Errors name the line.
func ParseSeeds(data []byte) ([]Seed, error) {
	if len(data) > maxSeedsFile {
		return nil, fmt.Errorf("seeds file is %d bytes; the limit is %d", len(data), maxSeedsFile)
	}
	var out []Seed
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), task.MaxURLLength+2)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(line) > task.MaxURLLength {
			return nil, fmt.Errorf("line %d: URL longer than %d bytes", n, task.MaxURLLength)
		}
		u, err := urls.Canonical(line, nil)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if u.Host == "" || u.User != nil || !utf8.ValidString(u.Host) {
			return nil, fmt.Errorf("line %d: %q is not an absolute http or https URL of a host", n, line)
		}
		if u.Path == "" {
			u.Path = "/"
		}
		dir := u.EscapedPath()
		dir = dir[:strings.LastIndex(dir, "/")+1]
		out = append(out, Seed{URL: u, Prefix: u.Scheme + "://" + u.Host + dir})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line too long or unreadable: %w", err)
	}
	return out, nil
}

// SeedTasks are the parameters of tasks made from seeds.
type SeedTasks struct {
	Delay    time.Duration // the tasks' politeness wait; the configured delay applies when longer
	MaxDepth int
	MaxPages int
	// Interval is the resubmission interval, also the tasks' recrawl
	// interval: a task that waited longer is cancelled.
	Interval time.Duration
}

// Task returns the task for s in round (a resubmission counter): one task
// per seed and round, so its ID is stable across restarts and a restart
// never submits a round's task twice.
func (p SeedTasks) Task(s Seed, round int, now time.Time) *task.Task {
	sum := sha256.Sum256([]byte(s.URL.String()))
	ch := strings.TrimPrefix(strings.TrimPrefix(s.Prefix, "https://"), "http://")
	return &task.Task{
		ID:       fmt.Sprintf("seed-%d-%s", round, hex.EncodeToString(sum[:8])),
		Channel:  ch,
		Seeds:    []string{s.URL.String()},
		Filters:  []string{"^" + regexp.QuoteMeta(s.Prefix)},
		MaxDepth: p.MaxDepth,
		MaxPages: p.MaxPages,
		Delay:    task.Duration(p.Delay),
		Interval: task.Duration(p.Interval),
		Issued:   now,
	}
}

// seedRound is the resubmission state, kept in a small file so a restart
// continues the current round.
type seedRound struct {
	Round   int       `json:"round"`
	Started time.Time `json:"started"`
}

func loadRound(path string) (seedRound, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return seedRound{}, nil
	}
	if err != nil {
		return seedRound{}, fmt.Errorf("read seeds round: %w", err)
	}
	var r seedRound
	if err := json.Unmarshal(b, &r); err != nil {
		return seedRound{}, fmt.Errorf("read seeds round %s: %w", path, err)
	}
	return r, nil
}

func saveRound(path string, r seedRound) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("save seeds round: %w", err)
	}
	return atomicfile.WriteFile(path, b, 0o600)
}
