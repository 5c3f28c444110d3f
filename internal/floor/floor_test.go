package floor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

const id = "12D3KooWGRUVh7Pyw3bGdT5ab2gVGgXHcP8bMJTKpB8zB3NdgyKc"

func TestDelay(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		ok   bool
	}{
		{"the default", time.Second, true},
		{"slower", 5 * time.Second, true},
		{"a millisecond", time.Millisecond, false},
		{"just under", time.Second - time.Nanosecond, false},
		{"none", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Delay(tc.d, MinDelay)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrRefused)) {
				t.Fatalf("Delay(%v) = %v, want ok %v", tc.d, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "never waits less than 1s") {
				t.Fatalf("Delay(%v) = %q: does not say the floor", tc.d, err)
			}
		})
	}
}

func TestUserAgent(t *testing.T) {
	for _, tc := range []struct {
		ua, crawler string // crawler "" = allowed
	}{
		{"Hivecrawl/0.3.0 (+https://hivecrawl.org/bot)", ""},
		{"Examplenet/1.0 (+https://example.org/bot; like nothing else)", ""},
		{"Slurpee/2.0 (+https://slurpee.example/)", ""},
		{"GoogleCrawlFriends/1.0 (+https://www.google.com/bot.html)", ""},
		{"Googlebot/2.1 (+http://www.google.com/bot.html)", "googlebot"},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "googlebot"},
		{"googlebot-image/1.0", "googlebot"},
		{"Mozilla/5.0 (compatible; bingbot/2.0)", "bingbot"},
		{"Mozilla/5.0 (compatible; Yahoo! Slurp)", "slurp"},
		{"DuckDuckBot/1.1", "duckduckbot"},
		{"Mozilla/5.0 (compatible; Baiduspider/2.0)", "baiduspider"},
		{"Mozilla/5.0 (compatible; YandexBot/3.0)", "yandexbot"},
		{"Applebot/0.1", "applebot"},
		{"facebookexternalhit/1.1", "facebookexternalhit"},
		{"GPTBot/1.0", "gptbot"},
		{"ClaudeBot/1.0", "claudebot"},
		{"CCBot/2.0 (https://commoncrawl.org/faq/)", "ccbot"},
		{"AhrefsBot/7.0", "ahrefsbot"},
		{"SemrushBot/7~bl", "semrushbot"},
		{"MJ12bot/v1.4.8", "mj12bot"},
		{"PetalBot", "petalbot"},
		{"Bytespider", "bytespider"},
		{"Amazonbot/0.1", "amazonbot"},
		{"Hivecrawl/1.0 (compatible; AMAZONBOT)", "amazonbot"},
	} {
		t.Run(tc.ua, func(t *testing.T) {
			err := UserAgent(tc.ua)
			if tc.crawler == "" {
				if err != nil {
					t.Fatalf("UserAgent(%q) = %v, want it allowed", tc.ua, err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `names the crawler "`+tc.crawler+`"`) {
				t.Fatalf("UserAgent(%q) = %v, want it refused as %s", tc.ua, err, tc.crawler)
			}
		})
	}
}

func TestBootstrap(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		allow      netguard.Allow
		why        string // "" = allowed
	}{
		{"public v4", "/ip4/93.184.216.34/tcp/4901/p2p/" + id, 0, ""},
		{"public v6 quic", "/ip6/2606:4700::1111/udp/4901/quic-v1/p2p/" + id, 0, ""},
		{"public name", "/dns4/boot.example.org/tcp/4901/p2p/" + id, 0, ""},
		{"loopback", "/ip4/127.0.0.1/tcp/4901/p2p/" + id, 0, "on this machine (loopback)"},
		{"loopback under the test switch", "/ip4/127.0.0.1/tcp/4901/p2p/" + id, netguard.AllowLoopback, ""},
		{"private 192.168", "/ip4/192.168.1.1/tcp/80/p2p/" + id, netguard.AllowLoopback, "in a private network range"},
		{"private 10", "/ip4/10.0.0.7/tcp/4901/p2p/" + id, 0, "in a private network range"},
		{"private v6", "/ip6/fd00::1/tcp/4901/p2p/" + id, 0, "in a private network range"},
		{"link-local", "/ip4/169.254.169.254/tcp/80/p2p/" + id, 0, "link-local"},
		{"link-local v6", "/ip6/fe80::1/tcp/4901/p2p/" + id, 0, "link-local"},
		{"unspecified", "/ip4/0.0.0.0/tcp/4901/p2p/" + id, 0, "unspecified"},
		{"documentation range", "/ip4/198.51.100.7/tcp/4901/p2p/" + id, 0, "reserved for special use"},
		{"documentation range under the lab switch", "/ip4/198.51.100.7/tcp/4901/p2p/" + id, netguard.AllowTestNets, ""},
		{"localhost by name", "/dns4/localhost/tcp/4901/p2p/" + id, 0, "names this machine"},
		{"mDNS name", "/dns4/router.local/tcp/80/p2p/" + id, 0, "names a machine on a local network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Bootstrap([]string{"/ip4/93.184.216.35/tcp/4901/p2p/" + id, tc.addr}, tc.allow)
			if tc.why == "" {
				if err != nil {
					t.Fatalf("Bootstrap(%s) = %v, want it allowed", tc.addr, err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), tc.addr) {
				t.Fatalf("Bootstrap(%s) = %v, want it refused as %q", tc.addr, err, tc.why)
			}
		})
	}
}

// FuzzUserAgent: a User-Agent is outside input (the operator's); UserAgent
// never panics, and a refusal names a known crawler that the input holds.
func FuzzUserAgent(f *testing.F) {
	f.Add("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	f.Add("Hivecrawl/1.0 (+https://example.org/bot)")
	f.Fuzz(func(t *testing.T, ua string) {
		err := UserAgent(ua)
		if err == nil {
			return
		}
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("UserAgent(%q) = %v, not ErrRefused", ua, err)
		}
		for _, c := range Crawlers {
			if strings.Contains(strings.ToLower(ua), c) {
				return
			}
		}
		t.Fatalf("UserAgent(%q) refused without a crawler's name in it: %v", ua, err)
	})
}

// FuzzBootstrap: bootstrap addresses are outside input (the profile);
// Bootstrap never panics and refuses only with ErrRefused.
func FuzzBootstrap(f *testing.F) {
	f.Add("/ip4/127.0.0.1/tcp/4901/p2p/" + id)
	f.Add("/dns4/localhost/tcp/1")
	f.Add("/ip6/fe80::1/udp/1/quic-v1")
	f.Fuzz(func(t *testing.T, addr string) {
		if err := Bootstrap([]string{addr}, 0); err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("Bootstrap(%q) = %v, not ErrRefused", addr, err)
		}
	})
}
