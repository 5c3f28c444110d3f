package app

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/testkit/webbotauth"
)

// TestSignedRequestsVerify runs a manager started with no signing option
// and a volunteer of its network crawling a site: every request the site
// gets carries the User-Agent naming the manager's bot page and a
// signature in the dictionary form of Signature-Agent that an independent
// RFC 9421 verifier accepts against the directory the header names; once
// the operator withdraws the volunteer's key, the same request fails.
func TestSignedRequestsVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a manager, a client and Node.js")
	}
	v := webbotauth.New(t)
	site := &webbotauth.Recorder{Next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><title>Home</title></head><body><p>Welcome to a small site.</p><a href="/about">About</a></body></html>`))
		case "/about":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><title>About</title></head><body><p>About this small site.</p></body></html>`))
		default:
			http.NotFound(w, r)
		}
	})}
	srv := httptest.NewServer(site)
	defer srv.Close()

	s := startSwarmWith(t, 1, manager.Options{
		Schedule: manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 2, MaxPerFeedback: -1}},
	})
	s.waitMembers(t)
	if _, err := s.m.AddSeeds([]string{srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	db := s.m.Channels()
	waitFor(t, 60*time.Second, "the site crawled", func() bool { return allUpdated(t, db, 1) })

	got := site.Requests()
	if len(got) < 2 {
		t.Fatalf("the site got %d requests, want robots.txt and pages", len(got))
	}
	var page webbotauth.Request
	for _, r := range got {
		if want := "(+" + s.m.BotPageURL() + ")"; !strings.HasPrefix(r.Headers["user-agent"], "Hivecrawl/") || !strings.HasSuffix(r.Headers["user-agent"], want) {
			t.Errorf("request for %s sent User-Agent %q, want one naming the bot page %s", r.URL, r.Headers["user-agent"], want)
		}
		if want := `sig1="` + strings.TrimSuffix(s.m.BotPageURL(), "/") + `"`; r.Headers["signature"] == "" || r.Headers["signature-agent"] != want {
			t.Errorf("request for %s is not signed with Signature-Agent %s: %v", r.URL, want, r.Headers)
		}
		if strings.HasSuffix(r.URL, "/about") {
			page = r
		}
	}
	if page.URL == "" {
		t.Fatal("the site never got /about")
	}
	if ok, out := v.Verify(t, page); !ok {
		t.Fatalf("the volunteer's request did not verify against the manager's directory: %+v", out)
	}

	// The operator withdraws the volunteer's key through the local API.
	body, _ := json.Marshal(operator.WithdrawRequest{Key: s.clients[0].net.h.ID().String(), Reason: "test"})
	req, _ := http.NewRequest(http.MethodPost, s.m.APIURL()+"/api/keys/withdraw", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.m.APIToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("withdraw = %s", resp.Status)
	}
	if ok, out := v.Verify(t, page); ok || !strings.Contains(out.Error, "key not found") {
		t.Fatalf("a request signed with a withdrawn key still verified: %+v", out)
	}
}
