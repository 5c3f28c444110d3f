// Package cheat is the demo's dishonest volunteer: an uploader that forges
// every result it delivers, in the ways real cheaters of volunteer
// projects do, so that `hivecrawl demo --cheaters` can count what the
// operator's validation lets through. It is switched on only by the demo
// (`hivecrawl run --cheat MODE`) and writes down every page it forged, so
// the demo can look for them in the operator's output.
//
// The modes:
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
//     else (squat.go);
//   - sybil: one of two identities of one cheater (`hivecrawl run --cheat
//     sybil --cheat-pair DIR`, the same DIR for both): each alters its own
//     results as alter mode does and writes what it uploaded to DIR, and
//     confirms its twin's forged pages when it is drawn to spot-check
//     them (sybil.go).
package cheat

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/task"
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

// LogFile is the file, in the client's data directory, listing the forged
// pages: one JSON Forged per line.
const LogFile = "forged.jsonl"

// Forged is one page a cheater uploaded that is not the page the web
// serves at its URL.
type Forged struct {
	Mode string `json:"mode"`
	Task string `json:"task"`
	URL  string `json:"url"`
}

// Uploader forges each delivery, then hands it to Honest (or, in foreign
// mode, to Sybil, an uploader with an identity that holds no task).
type Uploader struct {
	Mode   string
	Honest taskmgr.Uploader
	// Sybil returns the uploader of another identity (foreign mode).
	Sybil func(ctx context.Context) (taskmgr.Uploader, error)
	// Dir is where forged spools and LogFile are written.
	Dir string
	// Manager opens the signed tasks.
	Manager crypto.PubKey
	// Pair is the directory a sybil shares with its twin, and Self its
	// own name there (sybil mode).
	Pair, Self string

	mu   sync.Mutex
	last []*task.Page // the previous delivery's pages (replay)
	host string       // their host
}

var _ taskmgr.Uploader = (*Uploader)(nil)

// Valid reports whether mode names a mode.
func Valid(mode string) bool {
	for _, m := range Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// Upload forges d and uploads the forgery.
func (u *Uploader) Upload(ctx context.Context, d taskmgr.Delivery) ([]byte, error) {
	var pages []*task.Page
	if err := crawler.ReadSpool(d.Spool, func(p *task.Page) error { pages = append(pages, p); return nil }); err != nil {
		return nil, err
	}
	t, err := envelope.Open(d.Raw, u.Manager)
	if err != nil {
		return nil, fmt.Errorf("cheat: %w", err)
	}
	host := t.Host()
	if u.Mode == Sybil && isCheck(d.TaskID) {
		return u.confirm(ctx, d, t.Seeds, pages)
	}
	if u.Mode == Foreign {
		if u.Sybil == nil {
			return nil, errors.New("cheat: foreign mode needs a second identity")
		}
		s, err := u.Sybil(ctx)
		if err != nil {
			return nil, err
		}
		if err := u.log(d.TaskID, pages); err != nil {
			return nil, err
		}
		return s.Upload(ctx, d)
	}
	forged := u.forge(d, host, pages)
	if err := u.log(d.TaskID, falsePages(forged, pages)); err != nil {
		return nil, err
	}
	if u.Mode == Sybil {
		// Written before the upload: its spot-check is issued once
		// storage has the result, and the twin may be drawn for it.
		if err := u.share(d.TaskID, falsePages(forged, pages)); err != nil {
			return nil, err
		}
	}
	return u.send(ctx, d, forged)
}

// send uploads pages as d's result, through the honest uploader.
func (u *Uploader) send(ctx context.Context, d taskmgr.Delivery, pages []*task.Page) ([]byte, error) {
	path := filepath.Join(u.Dir, "forged-"+fmt.Sprintf("%x", sha256.Sum256([]byte(d.TaskID)))[:16]+".spool")
	sp, err := crawler.OpenSpool(path)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		if err := sp.Page(p); err != nil {
			sp.Close()
			return nil, err
		}
	}
	if err := sp.Close(); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	fd := d
	fd.Spool = path
	if d.Result != nil {
		r := *d.Result
		r.Stats.PagesFetched = len(pages)
		if u.Mode == Inflate {
			r.Stats.PagesFetched *= 10
			r.Stats.PagesNew *= 10
		}
		fd.Result = &r
	}
	return u.Honest.Upload(ctx, fd)
}

// forge returns the pages uploaded instead of pages.
func (u *Uploader) forge(d taskmgr.Delivery, host string, pages []*task.Page) []*task.Page {
	rng := rand.New(rand.NewPCG(uint64(len(d.TaskID)), uint64(time.Now().UnixNano())))
	scheme := "http"
	if len(pages) > 0 && strings.HasPrefix(pages[0].URL, "https:") {
		scheme = "https"
	}
	made := func(i int, text string) *task.Page {
		return &task.Page{
			URL: fmt.Sprintf("%s://%s/%s-%d-%d.html", scheme, host, u.Mode, rng.Uint32(), i), Status: 200, FetchedAt: time.Now().UTC(),
			Title: "Page " + fmt.Sprint(i), Text: []byte(text), TextBytes: len(text), Digest: task.DigestString(text),
		}
	}
	// invent makes as many pages as the real result has, at least 5.
	invent := func() []*task.Page {
		out := make([]*task.Page, 0, max(len(pages), 5))
		for i := range cap(out) {
			out = append(out, made(i, madeUp(rng)))
		}
		return out
	}
	switch u.Mode {
	case Invent:
		return invent()
	case Alter, Sybil:
		return rewrite(pages, func(text string) string { return alter(text, rng) })
	case Inflate:
		var out []*task.Page
		for _, p := range pages {
			text, err := export.Text(p)
			if err != nil || text == "" {
				continue
			}
			for range 3 {
				out = append(out, made(len(out), text))
			}
		}
		return out
	case Partial:
		out := slices.Clone(pages)
		for i := 0; i < len(out); i += 10 {
			out[i] = made(i, madeUp(rng))
		}
		if len(out) == 0 {
			out = append(out, made(0, madeUp(rng)))
		}
		return out
	case Subtle:
		return rewrite(pages, insertSpam)
	case Replay:
		u.mu.Lock()
		old, oldHost := u.last, u.host
		if host != oldHost {
			u.last, u.host = pages, host
		}
		u.mu.Unlock()
		if len(old) == 0 || oldHost == host {
			return invent() // nothing from another host to replay yet
		}
		return old
	}
	return pages
}

// rewrite returns copies of the pages with text, their text changed by
// change and their digests made to match.
func rewrite(pages []*task.Page, change func(string) string) []*task.Page {
	out := make([]*task.Page, 0, len(pages))
	for _, p := range pages {
		text, err := export.Text(p)
		if err != nil || text == "" {
			continue
		}
		q := *p
		alt := change(text)
		q.Text, q.Compression, q.TextBytes, q.Digest = []byte(alt), "", len(alt), task.DigestString(alt)
		out = append(out, &q)
	}
	return out
}

// falsePages returns the pages of forged that are not the page the web
// served (not among real, the crawl's own pages, as they are).
func falsePages(forged, real []*task.Page) []*task.Page {
	var out []*task.Page
	for _, p := range forged {
		if !slices.Contains(real, p) {
			out = append(out, p)
		}
	}
	return out
}

// log appends the forged pages of task id to LogFile.
func (u *Uploader) log(id string, pages []*task.Page) error {
	lines := make([]any, 0, len(pages))
	for _, p := range pages {
		lines = append(lines, Forged{Mode: u.Mode, Task: id, URL: p.URL})
	}
	return appendJSON(filepath.Join(u.Dir, LogFile), lines)
}

// ReadLog returns the forged pages listed in the LogFile of data
// directory dir (none when there is no file).
func ReadLog(dir string) ([]Forged, error) {
	return readJSONL[Forged](filepath.Join(dir, LogFile))
}

// appendJSON appends each of lines to the file at path as a line of
// JSON, in one write.
func appendJSON(path string, lines []any) error {
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

// readJSONL reads the file at path, a JSON T per line (none when there
// is no file). A last line without its newline is an append still under
// way (appendJSON writes whole lines), and is left for the next read.
func readJSONL[T any](path string) ([]T, error) {
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

var words = strings.Fields("cheap pills casino bonus winner free offer click now limited deal prize miracle crypto loan")

// madeUp returns about 150 words of made-up text.
func madeUp(rng *rand.Rand) string {
	var b strings.Builder
	for i := range 150 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// spam is the sentence subtle mode inserts: a few words and a link, in
// a page that otherwise reads as the site serves it.
const spam = "Readers also liked cheap replica watches at https://watches.example/deal with free shipping today."

// insertSpam puts spam in the middle of text, at a sentence's end when
// there is one.
func insertSpam(text string) string {
	at := len(text) / 2
	if i := strings.Index(text[at:], ". "); i >= 0 {
		at += i + 2
	}
	return text[:at] + spam + " " + text[at:]
}

// alter replaces every third word of text with a spam word.
func alter(text string, rng *rand.Rand) string {
	f := strings.Fields(text)
	for i := range f {
		if i%3 == 1 {
			f[i] = words[rng.IntN(len(words))]
		}
	}
	return strings.Join(f, " ")
}
