package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// Accepting a result: a task's first valid result is stored and earns a
// receipt, a repeat gets its receipt again, a late or another peer's one
// a receipt of zero, and a spot-check's pages go to judge.go.

// Accept checks and stores one upload from peer: the task must be signed
// by the manager and issued by it; the first valid result of a task is
// stored and earns credit, a repeat from the same peer gets the same
// receipt back, and a result that comes after another peer's earns a
// receipt of zero. It returns an error for uploads it refuses.
func (s *Storage) Accept(ctx context.Context, from string, h *upload.Header, pages []*task.Page) (*upload.Response, error) {
	t, err := s.open(h)
	if err != nil {
		return nil, err
	}
	return s.accept(ctx, from, t, h, pageSlice(pages))
}

// accept is Accept for the upload of task t, whose signature was checked.
func (s *Storage) accept(ctx context.Context, from string, t *task.Task, h *upload.Header, pages pageSource) (*upload.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, found, err := s.idx.receipt(t.ID); err != nil {
		return nil, fmt.Errorf("read receipt of task %s: %w", t.ID, err)
	} else if found {
		if prev.Peer == from {
			return &upload.Response{Receipt: prev.Raw}, nil
		}
		return s.duplicate(t, from)
	}
	rec, err := s.mayUpload(t, from)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.State == channels.TaskDone && rec.Peer != from:
		return s.duplicate(t, from)
	case rec.State == channels.TaskFailed:
		// The deadline passed and the task was counted lost; its channel
		// is due again, so this late result is not needed.
		return s.duplicate(t, from)
	case rec.Checks != "":
		return s.judge(ctx, t, rec, from, pages, hostAsks(h.Result))
	}
	return s.store(ctx, t, rec, from, h, pages)
}

// hostAsks is the part of a result's feedback that a spot-check's carries
// too: what the host asked of the crawler (its wait, a rest) and the
// addresses it answered from. Ending a check's lease records them at the
// host's lease as a crawl's result does, so that the host's next
// crawler keeps the wait after the checker's last request.
func hostAsks(r task.Result) channels.Feedback {
	return channels.Feedback{HostWait: time.Duration(r.HostWait), HostRest: r.HostRest, HostAddrs: r.HostAddrs}
}

// continuation is the rest of handed-off task t (task.StoppedHandedOff) as
// an unsigned task for whoever takes the host over, or nil when res
// carries no rest that task t may go on with.
func continuation(t *task.Task, res *task.Result) *task.Task {
	if res.Stopped != task.StoppedHandedOff || res.Rest == nil || len(res.Rest.Todo) == 0 {
		return nil
	}
	if err := res.Rest.Validate(t.Host()); err != nil {
		return nil
	}
	next := *t
	next.ID, next.Resume = task.ContinuationID(t.ID), res.Rest
	next.Issued, next.Lease, next.Target, next.Policy = time.Time{}, task.Lease{}, nil, task.Policy{}
	if next.Validate() != nil {
		return nil
	}
	return &next
}

// duplicate answers a result that came after another: a signed receipt of
// zero, so the crawler stops retrying.
func (s *Storage) duplicate(t *task.Task, from string) (*upload.Response, error) {
	if err := s.idx.count(func(tt *Totals) { tt.Duplicates++ }); err != nil {
		return nil, fmt.Errorf("count duplicate: %w", err)
	}
	r := task.Receipt{TaskID: t.ID, Channel: t.Channel, Peer: from, IssuedAt: s.opts.Now().UTC()}
	raw, err := upload.SignReceipt(r, s.opts.Key)
	if err != nil {
		return nil, err
	}
	return &upload.Response{Receipt: raw, Duplicate: true}, nil
}

// fetchSkew is how far a crawler's clock may lag the manager's when it
// dates a fetched page: pages dated earlier than their task's issue time by
// more are replayed from an older result and not accepted.
const fetchSkew = 5 * time.Minute

// store writes the pages of a first result and issues its receipt. The
// WARC records are made durable before the task is marked done, and the
// receipt is stored after it: a crash in between makes the same peer's
// retry store the records again (duplicated in WARC, indexed once).
//
// The pages are read three times, one at a time: to choose the ones
// stored, to write them, and to index their text for search once the
// result is known to be kept. Only their URLs and index entries are held
// for the whole result.
func (s *Storage) store(ctx context.Context, t *task.Task, rec channels.Task, from string, h *upload.Header, pages pageSource) (*upload.Response, error) {
	now := s.opts.Now().UTC()
	hosts := map[string]bool{}
	for _, seed := range t.Seeds {
		if u, err := urls.Canonical(seed, nil); err == nil {
			hosts[u.Host] = true
		}
	}
	// keyOf is the canonical URL of each page stored, "" for the others.
	keyOf := make([]string, pages.Len())
	keys := make([]string, 0, pages.Len())
	seen := make(map[string]bool, pages.Len())
	err := pages.Each(func(i int, p *task.Page) error {
		// A page is stored, indexed and credited under its canonical URL,
		// once per upload: the same page under several spellings ("#a",
		// an escape, a tracking parameter) or sent twice is one page, and
		// a spot-check of one copy would vouch for all.
		u, err := urls.Canonical(p.URL, nil)
		if err != nil || !hosts[u.Host] || p.Error != "" || p.DuplicateOf != "" {
			return nil
		}
		if !t.Issued.IsZero() && p.FetchedAt.Before(t.Issued.Add(-fetchSkew)) {
			// Fetched before its task was issued: a replayed page.
			return nil
		}
		key := u.String()
		if seen[key] {
			return nil
		}
		seen[key] = true
		keyOf[i] = key
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen = nil
	known, err := s.idx.entries(keys)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	var others map[string]bool // tasks of known pages whose result was another peer's
	if s.opts.Validation != nil {
		if others, err = s.idx.othersTasks(known, from); err != nil {
			return nil, fmt.Errorf("read index: %w", err)
		}
	}
	var (
		fb         = channels.Feedback{Stats: h.Result.Stats, InterSite: h.Result.InterSite, Stopped: h.Result.Stopped, HostWait: time.Duration(h.Result.HostWait), HostRest: h.Result.HostRest, HostAddrs: h.Result.HostAddrs, Strike: h.Result.Strike, Refused: h.Result.Refused}
		entries    = make(map[string]Entry, len(keys))
		r          = task.Receipt{TaskID: t.ID, Channel: t.Channel, Peer: from, IssuedAt: now}
		unchang    int
		records    int
		textSize   int64
		validating = s.opts.Validation != nil
		wrote      written   // kept when validating
		sample     []sampled // kept when validating
		found      []int     // the positions of the pages to index for search
	)
	err = pages.Each(func(i int, p *task.Page) error {
		key := keyOf[i]
		if key == "" {
			return nil
		}
		if key != p.URL {
			c := *p
			c.URL = key
			p = &c
		}
		prev, wasKnown := known[p.URL]
		if p.Unchanged && !wasKnown {
			// "Unchanged" since a crawl that stored nothing: a page count
			// inflated without content, or a filter's false positive.
			return nil
		}
		pr, unchanged := channels.Classify(p, prev.Digest, wasKnown)
		if unchanged {
			unchang++
			fb.Pages = append(fb.Pages, pr)
			if validating {
				e := Entry{Digest: pr.Digest, ETag: p.ETag, LastModified: p.LastModified, Fetched: p.FetchedAt, Task: prev.Task, Location: prev.Location}
				sample = append(sample, sampled{URL: p.URL, Entry: e, Unchanged: true, Known: others[prev.Task]})
			}
			return nil
		}
		text, err := export.Text(p)
		if err != nil {
			return nil // text that does not decompress is not accepted
		}
		if p.Refused != "" {
			text = "" // the site refused the crawl: kept as a page without text, wherever the text came from
		}
		if s.opts.Search != nil && text != "" {
			found = append(found, i)
		}
		wp := p
		if !s.opts.StoreRaw && (p.Raw != nil || p.Header != nil) {
			c := *p
			c.DropRaw()
			wp = &c
		}
		loc, ok, err := s.rot.Page(wp)
		if err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
		if ok {
			records++
			textSize += int64(len(p.Text))
		}
		fb.Pages = append(fb.Pages, pr)
		e := Entry{Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified, Fetched: p.FetchedAt, Task: t.ID, Location: loc}
		entries[p.URL] = e
		if validating {
			sample = append(sample, sampled{URL: p.URL, Entry: e, Known: wasKnown && others[prev.Task]})
			wrote.URLs = append(wrote.URLs, p.URL)
			if ok {
				wrote.Records = append(wrote.Records, loc)
			}
		}
		if wasKnown {
			r.PagesChanged++
		} else {
			r.PagesNew++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.rot.Sync(); err != nil {
		return nil, err
	}
	r.PagesAccepted = r.PagesNew + r.PagesChanged + unchang
	r.Bytes = textSize
	r.Credits = Credits(r.PagesNew, r.PagesChanged, unchang, textSize)
	var (
		chk      *checkRec
		recorded bool
	)
	if r.Credits > 0 {
		picked, rec, err := s.chooseCheck(from, sample)
		recorded = rec
		if err != nil {
			return nil, fmt.Errorf("validation record of %s: %w", from, err)
		}
		if len(picked) > 0 {
			r.State = task.CreditPending
			chk = &checkRec{Task: t.ID, Peer: from, Sample: picked, Recorded: recorded, Written: wrote}
		}
	}
	fb.Continue = continuation(t, &h.Result)
	if rec.State == channels.TaskOpen {
		out, err := s.opts.Tasks.Complete(ctx, t.ID, from, fb)
		if err != nil {
			return nil, fmt.Errorf("record result of task %s: %w", t.ID, err)
		}
		if !out.First && out.Task.Peer != from {
			return s.duplicate(t, from)
		}
	}
	raw, err := upload.SignReceipt(r, s.opts.Key)
	if err != nil {
		return nil, err
	}
	// Indexed for search before the receipt is committed: a page listed as
	// stored, or a credit confirmed, is one that search finds.
	if err := s.index(t.Channel, pages, keyOf, found); err != nil {
		s.log.Warn("Pages stored but not indexed for search", "task", t.ID, "err", err)
	}
	if err := s.idx.commit(entries, r, raw, h.Nickname, records, chk, validating, recorded); err != nil {
		return nil, fmt.Errorf("store receipt of task %s: %w", t.ID, err)
	}
	s.log.Info("Upload stored", "task", t.ID, "peer", from, "new", r.PagesNew, "changed", r.PagesChanged,
		"unchanged", unchang, "credits", r.Credits)
	return &upload.Response{Receipt: raw}, nil
}
