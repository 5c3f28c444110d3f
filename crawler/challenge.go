package crawler

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Challenge and block detection (docs/developer/leases.md, "Challenges"). A site
// whose firewall took the crawler for a bot answers with a challenge page
// (Cloudflare's "Just a moment...", a CAPTCHA), marks the answer
// (cf-mitigated: challenge), or refuses one page after another. Going on
// would only burn the volunteer's address: the task stops at once, the
// page is recorded as failed with no text, and the result's strike rests
// the host at the manager.

// BlockRun is how many 401, 403, 429 or 503 answers in a row stop a task
// as a block.
const BlockRun = 3

// challengeBody is how much of a body is searched for challenge markers;
// smallChallenge the largest body the weaker phrases count in (challenge
// pages are small, articles about CAPTCHAs are not).
const (
	challengeBody  = 64 << 10
	smallChallenge = 16 << 10
)

// challengeMarkers appear only in challenge pages; challengePhrases also
// in articles, and count in small pages only. Lower case.
var (
	challengeMarkers = []string{
		"/cdn-cgi/challenge-platform/", "window._cf_chl_opt", "cf-browser-verification",
		"captcha-delivery.com", "_incapsula_resource", "px-captcha", "/_guard/captcha",
	}
	challengePhrases = []string{
		"verify you are human", "verifying you are human", "checking your browser before accessing",
		"<title>just a moment...</title>", "attention required! | cloudflare",
		"please enable js and disable any ad blocker", "are you a robot",
	}
)

// challengeOf says why a response is a challenge ("" when it is not).
func challengeOf(resp *response) string {
	if strings.EqualFold(strings.TrimSpace(resp.Header.Get("cf-mitigated")), "challenge") {
		return "cf-mitigated: challenge"
	}
	body := resp.Body
	if len(body) > challengeBody {
		body = body[:challengeBody]
	}
	if len(body) == 0 {
		return ""
	}
	low := bytes.ToLower(body)
	for _, m := range challengeMarkers {
		if bytes.Contains(low, []byte(m)) {
			return "challenge page (" + m + ")"
		}
	}
	if len(resp.Body) <= smallChallenge {
		for _, p := range challengePhrases {
			if bytes.Contains(low, []byte(p)) {
				return "challenge page (\"" + p + "\")"
			}
		}
	}
	return ""
}

// isBlockStatus reports whether a status refuses the crawler.
func isBlockStatus(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// challenged stops the run on a challenge or block: page is recorded as
// failed, without text, the host rests here, and the result's strike
// rests it at the manager.
func (r *run) challenged(page *task.Page, host, why string) error {
	r.c.hosts.resting(host, time.Now().Add(SlowDownRest))
	r.res.Strike = task.StrikeChallenge
	r.res.Stopped = "challenged: " + why
	page.Error = errChallenge
	page.Title, page.Text, page.TextBytes, page.Digest, page.OutLinks = "", nil, 0, 0, 0
	r.res.Stats.AddError(errChallenge)
	r.log.Info("Site challenged the crawler; stopping its task", "host", host, "why", why)
	if err := r.emit(page); err != nil {
		return err
	}
	return errStop
}

// errChallenge is the error kind of a challenge page.
const errChallenge = "challenge"
