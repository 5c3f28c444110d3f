package cheat

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

// checkPrefix begins every spot-check task's ID
// (manager/channels.CheckPrefix): the sybil reads the code, as the threat
// model's cheater does.
const checkPrefix = "check/"

// isCheck reports whether task id is a spot-check.
func isCheck(id string) bool { return strings.HasPrefix(id, checkPrefix) }

// shared is one forged page a sybil wrote to its pair's directory.
type shared struct {
	Task string     `json:"task"`
	Page *task.Page `json:"page"`
}

// share appends the forged pages of task id to the sybil's file in its
// pair's directory, for its twin to confirm.
func (u *Uploader) share(id string, pages []*task.Page) error {
	if u.Pair == "" || u.Self == "" {
		return errors.New("cheat: sybil mode needs a pair directory and a name in it")
	}
	lines := make([]any, 0, len(pages))
	for _, p := range pages {
		lines = append(lines, shared{Task: id, Page: p})
	}
	return adversary.AppendJSONL(filepath.Join(u.Pair, u.Self+".jsonl"), lines)
}

// twinPages returns the forged pages the twin wrote to the pair's
// directory (every file but the sybil's own), the latest of each URL.
func (u *Uploader) twinPages() (map[string]shared, error) {
	files, err := filepath.Glob(filepath.Join(u.Pair, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := map[string]shared{}
	for _, f := range files {
		if filepath.Base(f) == u.Self+".jsonl" {
			continue
		}
		pages, err := adversary.ReadJSONL[shared](f)
		if err != nil {
			return nil, fmt.Errorf("cheat: twin's pages: %w", err)
		}
		for _, s := range pages {
			if s.Page != nil {
				out[s.Page.URL] = s
			}
		}
	}
	return out, nil
}

// confirm uploads spot-check d: pages, the sybil's honest fetch of the
// check's seeds, with every page its twin forged replaced by the twin's
// forgery, so that it matches what storage holds. A check of anyone
// else's pages goes up as fetched.
func (u *Uploader) confirm(ctx context.Context, d taskmgr.Delivery, seeds []string, pages []*task.Page) ([]byte, error) {
	twin, err := u.twinPages()
	if err != nil {
		return nil, err
	}
	out := slices.Clone(pages)
	of := map[string]int{}
	for _, url := range seeds {
		s, ok := twin[url]
		if !ok {
			continue
		}
		q := *s.Page
		q.FetchedAt = time.Now().UTC()
		if i := slices.IndexFunc(out, func(p *task.Page) bool { return p.URL == url }); i >= 0 {
			out[i] = &q
		} else {
			out = append(out, &q)
		}
		of[s.Task]++
	}
	if len(of) == 0 {
		return u.Honest.Upload(ctx, d)
	}
	var lines []any
	for _, id := range slices.Sorted(maps.Keys(of)) {
		lines = append(lines, adversary.Confirmation{Check: d.TaskID, Of: id, Pages: of[id]})
	}
	if err := adversary.AppendJSONL(filepath.Join(u.Dir, adversary.SybilLog), lines); err != nil {
		return nil, err
	}
	return u.send(ctx, d, out)
}
