package manager

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/keptport"
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
	addr, remember, err := m.siteAddr()
	if err != nil {
		return err
	}
	var srv *site.Server
	if remember {
		// The port is kept across restarts, so it comes from below the
		// ephemeral range, where no other socket is given it while the
		// manager is down (internal/keptport).
		host, _, _ := net.SplitHostPort(addr)
		var ln net.Listener
		if ln, err = keptport.Listen(host); err == nil {
			srv = site.On("site server", ln, m.siteHandler())
		} else {
			err = fmt.Errorf("site server: %w", err)
		}
	} else {
		srv, err = site.Listen("site server", addr, m.siteHandler())
	}
	if err != nil {
		if !remember && m.opts.Site.Directory == "" {
			err = fmt.Errorf("%w (the address kept in %s: remove that file to choose another port, or name one with --directory)",
				err, filepath.Join(m.opts.Dir, SiteAddrFile))
		}
		return err
	}
	m.dir = srv
	if remember {
		if err := atomicfile.WriteFile(filepath.Join(m.opts.Dir, SiteAddrFile), []byte(srv.Addr().String()+"\n"), 0o600); err != nil {
			return fmt.Errorf("keep the site server's address: %w", err)
		}
	}
	if m.opts.Politeness.Policy.SignatureAgent == "" {
		m.opts.Politeness.Policy.SignatureAgent = m.siteOrigin()
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

// siteAddr is where the site server listens: Options.Site.Directory, else the
// address kept in SiteAddrFile, else (remember) the first listen
// address's IP, whose port startSiteServer picks below the ephemeral
// range.
func (m *Manager) siteAddr() (addr string, remember bool, err error) {
	if m.opts.Site.Directory != "" {
		return m.opts.Site.Directory, false, nil
	}
	b, err := os.ReadFile(filepath.Join(m.opts.Dir, SiteAddrFile))
	switch {
	case err == nil:
		kept := strings.TrimSpace(string(b))
		if _, err := netip.ParseAddrPort(kept); err != nil {
			return "", false, fmt.Errorf("%s holds %q, not an address: remove it to choose another", filepath.Join(m.opts.Dir, SiteAddrFile), kept)
		}
		return kept, false, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", false, err
	}
	ip := "0.0.0.0"
	for _, s := range m.opts.Listen {
		a, err := ma.NewMultiaddr(s)
		if err != nil {
			continue
		}
		if v, err := a.ValueForProtocol(ma.P_IP4); err == nil {
			ip = v
			break
		}
		if v, err := a.ValueForProtocol(ma.P_IP6); err == nil {
			ip = v
			break
		}
	}
	return net.JoinHostPort(ip, "0"), true, nil
}

// siteOrigin is the site server's origin: its listen address, or, when
// that is every interface, the first address of the manager's libp2p
// host that is not loopback (loopback when there is none).
func (m *Manager) siteOrigin() string {
	ap, err := netip.ParseAddrPort(m.dir.Addr().String())
	if err != nil {
		return m.dir.Origin()
	}
	ip := ap.Addr().Unmap()
	if ip.IsUnspecified() {
		ip = netip.MustParseAddr("127.0.0.1")
		for _, a := range m.host.Addrs() {
			v, err := a.ValueForProtocol(ma.P_IP4)
			if err != nil {
				continue
			}
			if cand, err := netip.ParseAddr(v); err == nil && !cand.IsLoopback() {
				ip = cand
				break
			}
		}
	}
	return "http://" + netip.AddrPortFrom(ip, ap.Port()).String()
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
