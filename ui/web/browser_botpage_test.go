package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/site"
)

// TestBrowserBotPage opens a network manager's bot page, the one a site
// owner reaches through the User-Agent in their logs, in headless
// Chromium: it names the User-Agent, the robots.txt token and the
// operator's contact, shows how to block the crawler, links to the key
// directory and the opt-out, and its card link opens the signature agent
// card, whose keys are the directory's.
func TestBrowserBotPage(t *testing.T) {
	ctx := browser(t, "")
	m, err := manager.New(context.Background(), manager.Options{
		Dir:           t.TempDir(),
		Listen:        []string{"/ip4/127.0.0.1/tcp/0"},
		AllowLoopback: true,
		Name:          "testnet",
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Site:          manager.SiteOptions{Contact: "https://operator.example/contact"},
	})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.Serve(sctx) }()
	t.Cleanup(func() { cancel(); <-done })

	if err := chromedp.Do(ctx, chromedp.Navigate(m.BotPageURL())); err != nil {
		t.Fatalf("open %s: %v", m.BotPageURL(), err)
	}
	screenshot(t, ctx, "bot-page")
	ua := text(t, ctx, "User-Agent", `document.getElementById("user-agent").textContent`, func(s string) bool { return s != "" })
	if !strings.HasSuffix(ua, "(+"+m.BotPageURL()+")") {
		t.Errorf("the page shows User-Agent %q, want one naming this page", ua)
	}
	for _, c := range []struct{ what, expr, want string }{
		{"title", `document.title`, "Hivecrawl (testnet): the crawler in your logs"},
		{"token", `document.getElementById("token").textContent`, "hivecrawl"},
		{"contact", `document.getElementById("contact").href`, "https://operator.example/contact"},
		{"robots.txt", `document.getElementById("robots-example").textContent`, "User-agent: hivecrawl\nDisallow: /"},
		{"directory link", `document.getElementById("directory").href`, m.DirectoryURL()},
		{"opt-out link", `document.getElementById("optout").href`, m.BotPageURL() + "optout"},
	} {
		text(t, ctx, c.what, c.expr, func(s string) bool { return s == c.want })
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#card"))); err != nil {
		t.Fatal(err)
	}
	body := text(t, ctx, "card", `location.pathname === "`+site.CardPath+`" ? document.body.innerText : ""`,
		func(s string) bool { return strings.HasPrefix(s, "{") })
	var card site.Card
	if err := json.Unmarshal([]byte(body), &card); err != nil {
		t.Fatalf("the card is not JSON: %v\n%s", err, body)
	}
	if card.ExpectedUserAgent != ua || card.JWKSURI != m.DirectoryURL() || card.Keys.Keys == nil {
		t.Errorf("card %+v", card)
	}
}
