// Package cheat is the demo's dishonest volunteer: an uploader that forges
// every result it delivers, in the ways real cheaters of volunteer
// projects do (swarm/adversary names the modes and the records), so that
// `hivecrawl demo --cheaters` can count what the operator's validation
// lets through, and a runner that squats leases (squat.go). It is test
// kit code: only a program built with it (`go build -tags adversary
// ./cmd/hivecrawl`, then `run --cheat MODE`) runs it, and it writes down
// every page it forged, so the demo can look for them in the operator's
// output.
package cheat

import (
	"context"
	"crypto/sha256"
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
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

// Uploader forges each delivery, then hands it to Honest (or, in foreign
// mode, to Second, an uploader with an identity that holds no task).
type Uploader struct {
	Mode   string
	Honest taskmgr.Uploader
	// Second returns the uploader of another identity (foreign mode).
	Second func(ctx context.Context) (taskmgr.Uploader, error)
	// Dir is where forged spools and the adversary.LogFile are written.
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
	if u.Mode == adversary.Sybil && isCheck(d.TaskID) {
		return u.confirm(ctx, d, t.Seeds, pages)
	}
	if u.Mode == adversary.Foreign {
		if u.Second == nil {
			return nil, errors.New("cheat: foreign mode needs a second identity")
		}
		s, err := u.Second(ctx)
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
	if u.Mode == adversary.Sybil {
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
		if u.Mode == adversary.Inflate {
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
	case adversary.Invent:
		return invent()
	case adversary.Alter, adversary.Sybil:
		return rewrite(pages, func(text string) string { return alter(text, rng) })
	case adversary.Inflate:
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
	case adversary.Partial:
		out := slices.Clone(pages)
		for i := 0; i < len(out); i += 10 {
			out[i] = made(i, madeUp(rng))
		}
		if len(out) == 0 {
			out = append(out, made(0, madeUp(rng)))
		}
		return out
	case adversary.Subtle:
		return rewrite(pages, insertSpam)
	case adversary.Replay:
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

// log appends the forged pages of task id to adversary.LogFile.
func (u *Uploader) log(id string, pages []*task.Page) error {
	lines := make([]any, 0, len(pages))
	for _, p := range pages {
		lines = append(lines, adversary.Forged{Mode: u.Mode, Task: id, URL: p.URL})
	}
	return adversary.AppendJSONL(filepath.Join(u.Dir, adversary.LogFile), lines)
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
