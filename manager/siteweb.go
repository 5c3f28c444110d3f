package manager

import (
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/manager/site"
)

// startSiteServer opens the server web sites reach (m.dir): the key
// directory that verifies volunteers' signed requests, the bot page and
// the signature agent card. Every network's manager serves it, so every
// volunteer request is signed, unless the operator asked for Unsigned;
// solo mode, whose one crawler is the user's own, serves none. The
// Signature-Agent origin defaults to the server's, and the default
// User-Agent (defaultUA) then names the bot page.
func (m *Manager) startSiteServer(defaultUA bool) error {
	switch {
	case m.opts.Solo:
		return nil
	case m.opts.Site.Unsigned && (m.opts.Site.Directory != "" || m.opts.Politeness.Policy.SignatureAgent != ""):
		return errors.New("unsigned, yet a key directory or signature agent is named: choose one")
	case m.opts.Site.Unsigned:
		m.log.Warn("UNSIGNED: volunteers' requests carry no Web Bot Auth signature, so web sites cannot verify " +
			"that they come from this network; start without --unsigned to sign them")
		return nil
	}
	srv, err := site.OpenKept("site server", site.Kept{Addr: m.opts.Site.Directory,
		File: filepath.Join(m.opts.Dir, SiteAddrFile), Listen: m.opts.Listen}, m.siteHandler())
	if err != nil {
		return err
	}
	m.dir = srv
	if m.opts.Politeness.Policy.SignatureAgent == "" {
		m.opts.Politeness.Policy.SignatureAgent = m.dir.PublicOrigin(m.host.Addrs())
	}
	if defaultUA {
		m.opts.Politeness.Policy.UserAgent = DefaultUserAgent(m.opts.Version, m.BotPageURL())
	}
	if !strings.HasPrefix(m.opts.Politeness.Policy.SignatureAgent, "https://") {
		m.log.Warn("Web sites verify signatures against a key directory served over HTTPS: put an HTTPS origin in front "+
			"of the site server and name it with --signature-agent (docs/operator/botauth.md)", "signature_agent", m.opts.Politeness.Policy.SignatureAgent)
	}
	return nil
}

// BotPageURL is the bot page's address as web sites reach it, "" when the
// manager serves none.
func (m *Manager) BotPageURL() string {
	if m.dir == nil {
		return ""
	}
	return strings.TrimSuffix(m.opts.Politeness.Policy.SignatureAgent, "/") + "/"
}

// siteHandler serves web sites: the key directory, the signature agent
// card, the bot page and the self-service opt-out.
func (m *Manager) siteHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(botauth.DirectoryPath, m.keys.Handler())
	pages := site.Pages{About: m.about, Keys: m.keys, Log: m.log}
	mux.HandleFunc("GET "+site.CardPath, pages.ServeCard)
	mux.HandleFunc("GET /{$}", pages.ServeBotPage)
	raw, err := m.key.Raw()
	if err != nil {
		m.log.Warn("Self-service opt-out not served: no key to sign its tokens", "err", err)
		return mux
	}
	site.OptOutRoutes(mux, site.OptOutConfig{
		Secret: raw,
		Record: func(name, reason string) error {
			_, err := m.OptOut([]string{name}, reason)
			return err
		},
		Fetcher: m.fetcher,
		Now:     m.opts.Now,
		Log:     m.log,
	})
	return mux
}

// about is what the bot page and the card say of the network.
func (m *Manager) about() site.About {
	return site.About{
		Name: m.opts.Name, Contact: m.opts.Site.Contact,
		UserAgent: m.opts.Politeness.Policy.UserAgent, Token: m.opts.Politeness.Policy.Token, SignatureAgent: m.opts.Politeness.Policy.SignatureAgent,
		BotPage: m.BotPageURL(), Directory: m.DirectoryURL(),
		Delay: m.opts.Politeness.Delay, PerIP: m.opts.Politeness.PerIP,
	}
}
