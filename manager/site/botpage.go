package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
)

// CardPath is where the site server serves the signature agent card
// (draft-meunier-webbotauth-registry).
const CardPath = "/.well-known/signature-agent-card"

// Card is the signature agent card: who the crawler is, what it fetches
// and how fast, and its keys, for site owners and their tools. Field
// names are the draft's.
type Card struct {
	Name              string            `json:"name"`
	Contact           string            `json:"contact"`
	About             string            `json:"about"`
	ExpectedUserAgent string            `json:"expected-user-agent"`
	ProductToken      string            `json:"rfc9309-product-token"`
	Compliance        []string          `json:"rfc9309-compliance"`
	Trigger           string            `json:"trigger"`
	Purpose           string            `json:"purpose"`
	TargetedContent   string            `json:"targeted-content"`
	RateControl       string            `json:"rate-control"`
	RateExpectation   string            `json:"rate-expectation"`
	KnownURLs         []string          `json:"known-urls"`
	JWKSURI           string            `json:"jwks_uri"`
	Keys              botauth.Directory `json:"keys"`
}

// About is what the network says of itself to site owners, as it stands
// when a page is asked for (the manager settles its User-Agent and
// Signature-Agent only once its site server listens).
type About struct {
	// Name is the network's name ("" for none).
	Name    string
	Contact string
	// UserAgent and Token are the volunteers' User-Agent and robots.txt
	// product token.
	UserAgent, Token string
	// SignatureAgent is the origin requests name in Signature-Agent.
	SignatureAgent string
	// BotPage and Directory are the bot page's and the key directory's
	// URLs as web sites reach them.
	BotPage, Directory string
	// Delay is the politeness wait between two requests to a host; PerIP
	// bounds the hosts on one IP address crawled at once.
	Delay time.Duration
	PerIP int
}

// Keys is the key directory the card lists.
type Keys interface {
	Directory() (botauth.Directory, error)
}

// Pages serve the bot page and the signature agent card.
type Pages struct {
	About func() About
	Keys  Keys
	Log   *slog.Logger
}

// Card returns the signature agent card, without its keys.
func (p Pages) Card() Card { return card(p.About()) }

// card is the signature agent card of a network as a describes it.
func card(a About) Card {
	return Card{
		Name:              networkName(a.Name),
		Contact:           a.Contact,
		About:             a.BotPage,
		ExpectedUserAgent: a.UserAgent,
		ProductToken:      a.Token,
		Compliance:        []string{"User-Agent", "Allow", "Disallow", "Crawl-delay", "Content-Signal", "Content-Usage"},
		Trigger:           "crawler",
		Purpose:           "search",
		TargetedContent:   "the text of public web pages, for a search index",
		RateControl:       "robots.txt Crawl-delay; 429 and 503 with Retry-After",
		RateExpectation:   rateExpectation(a),
		KnownURLs:         []string{"/robots.txt"},
		JWKSURI:           a.Directory,
	}
}

// rateExpectation says how fast one site is crawled at most.
func rateExpectation(a About) string {
	return fmt.Sprintf("One connection per host, at most one request every %s (longer when robots.txt asks); "+
		"at most %d hosts on one IP address crawled at once", spell(a.Delay), a.PerIP)
}

// networkName is the network's name for site owners.
func networkName(name string) string {
	if name != "" {
		return "Hivecrawl (" + name + ")"
	}
	return "Hivecrawl"
}

// ServeCard serves the signature agent card.
func (p Pages) ServeCard(w http.ResponseWriter, _ *http.Request) {
	c := p.Card()
	var err error
	if c.Keys, err = p.Keys.Directory(); err != nil {
		// As the directory does: no card rather than one that may list a
		// withdrawn key.
		p.Log.Warn("Signature agent card unavailable: the key registry cannot be read", "err", err)
		http.Error(w, "the key registry cannot be read now; try again shortly", http.StatusServiceUnavailable)
		return
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		http.Error(w, "card unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(append(b, '\n'))
}

// botPageData is what the bot page shows.
type botPageData struct {
	Card
	Delay         time.Duration
	Directory     string
	CardURL       string
	Agent         string
	Validity      string
	OptOut        string
	ContactHref   string
	RobotsExample string
}

// ServeBotPage serves the page a site owner finds through the
// User-Agent: what Hivecrawl is, who runs it, how fast it comes, how to
// verify a request and how to stop it.
func (p Pages) ServeBotPage(w http.ResponseWriter, _ *http.Request) {
	a := p.About()
	c := card(a)
	d := botPageData{Card: c, Delay: a.Delay, Directory: a.Directory, CardURL: a.BotPage + CardPath[1:],
		Agent: a.SignatureAgent, Validity: spell(botauth.DefaultValidity), OptOut: a.BotPage + OptOutPath[1:],
		RobotsExample: "User-agent: " + c.ProductToken + "\nDisallow: /", ContactHref: contactHref(c.Contact)}
	var buf bytes.Buffer
	if err := botPage.Execute(&buf, d); err != nil {
		http.Error(w, "page unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(buf.Bytes())
}

var botPage = template.Must(template.New("bot").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}}: the crawler in your logs</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
code, pre { font: 14px/1.4 ui-monospace, monospace; background: #f3f3f3; }
pre { padding: .6rem .8rem; overflow-x: auto; }
h2 { margin-top: 2rem; font-size: 1.2rem; }
dt { font-weight: 600; }
</style>
</head>
<body>
<h1>{{.Name}}</h1>
<p>You found this page through the User-Agent in your logs. {{.Name}} is a volunteer web crawler:
people donate a little of their computer's bandwidth, and each crawls the public web sites nearest to it
on the network for a search engine's index. Requests to your site may therefore come from many addresses,
but one volunteer at a time crawls it, and every request is signed by this network.</p>

<h2>Who runs it</h2>
<p>Operator's contact: <a id="contact" href="{{.ContactHref}}">{{.Contact}}</a></p>

<h2>How to recognise it</h2>
<dl>
<dt>User-Agent</dt><dd><code id="user-agent">{{.ExpectedUserAgent}}</code></dd>
<dt>robots.txt token</dt><dd><code id="token">{{.ProductToken}}</code></dd>
<dt>Purpose</dt><dd>{{.Purpose}}: {{.TargetedContent}}</dd>
</dl>

<h2>How often it comes</h2>
<p id="rate">{{.RateExpectation}}. It obeys robots.txt (Allow, Disallow, Crawl-delay), Content-Signal and
Content-Usage, X-Robots-Tag and robots meta tags; it slows down on 429 and 503 with Retry-After, and a
402 is taken as a refusal. Pages are asked for again when the site's own rate of change calls for it.</p>

<h2>How to verify a request</h2>
<p>Every request carries an HTTP Message Signature (RFC 9421) in the Web Bot Auth profile:</p>
<pre id="verify-example">Signature-Agent: sig1="{{.Agent}}"
Signature-Input: sig1=("@authority" "signature-agent";key="sig1");created=…;expires=…;keyid="…";alg="ed25519";tag="web-bot-auth"
Signature: sig1=:…:</pre>
<p>Fetch the key directory at <a id="directory" href="{{.Directory}}">{{.Directory}}</a>, take the key whose JWK
thumbprint (RFC 7638) is the <code>keyid</code>, and check the signature over the covered components. A signature
is valid for {{.Validity}}; a volunteer whose key was withdrawn leaves the directory at once. Any Web Bot Auth
verifier does this (Cloudflare, AWS WAF, Akamai and others check these signatures).</p>

<h2>How to stop it</h2>
<p>Tell it in robots.txt; it reads robots.txt again at least once a day:</p>
<pre id="robots-example">{{.RobotsExample}}</pre>
<p>Or <a id="optout" href="{{.OptOut}}">opt your site out here</a>: every request to it stops within a minute,
across the whole network, and it stays out.</p>

<h2>For machines</h2>
<p>The signature agent card: <a id="card" href="{{.CardURL}}">{{.CardURL}}</a></p>
</body>
</html>
`))

// contactHref links to a contact: an e-mail address by mailto.
func contactHref(contact string) string {
	if strings.Contains(contact, "@") && !strings.Contains(contact, "://") && !strings.HasPrefix(contact, "mailto:") {
		return "mailto:" + contact
	}
	return contact
}

// spell writes d for a reader: "1 second", "60 seconds", "250 ms".
func spell(d time.Duration) string {
	switch {
	case d == time.Second:
		return "1 second"
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	default:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
}
