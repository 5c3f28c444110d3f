package manager

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/hivecrawl/hivecrawl/manager/indexnow"
	"github.com/hivecrawl/hivecrawl/manager/site"
)

// checkKey fetches the submission's key file with the operator's
// User-Agent and checks that it holds the key. Every failure wraps
// indexnow.ErrKey.
func (h *indexNow) checkKey(ctx context.Context, s indexnow.Submission) error {
	ctx, cancel := context.WithTimeout(ctx, site.FileWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.KeyFile, nil)
	if err != nil {
		return fmt.Errorf("%w: key file %s: %v", indexnow.ErrKey, s.KeyFile, err)
	}
	req.Header.Set("User-Agent", h.m.opts.Policy.UserAgent)
	req.Header.Set("Accept", "text/plain")
	resp, err := h.keys.Do(req)
	if err != nil {
		return fmt.Errorf("%w: could not fetch the key file: %v", indexnow.ErrKey, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: the key file %s answered %s", indexnow.ErrKey, s.KeyFile, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, indexnow.MaxKeyFile+1))
	if err != nil {
		return fmt.Errorf("%w: could not read the key file %s: %v", indexnow.ErrKey, s.KeyFile, err)
	}
	if err := indexnow.MatchKeyFile(body, s.Key); err != nil {
		return fmt.Errorf("key file %s: %w", s.KeyFile, err)
	}
	return nil
}
