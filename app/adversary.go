package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/upload"
)

// Adversary makes a network client a dishonest volunteer, for the demo's
// attackers (`hivecrawl demo --cheaters`, `--hijackers`): the test kit's
// cheaters (testkit/cheat) and zone hijackers (testkit/hijack) are built
// on it, and only a program built with them (`go build -tags adversary`)
// sets it. A nil field leaves the client honest in that respect.
type Adversary struct {
	// Uploads wraps the client's honest uploader.
	Uploads func(honest taskmgr.Uploader, env AdversaryEnv) taskmgr.Uploader
	// Runner replaces the crawl; the task manager still claims and
	// renews each task's lease around it.
	Runner func(env AdversaryEnv) taskmgr.Runner
	// Overlay runs beside the client's overlay member until ctx ends.
	Overlay func(ctx context.Context, env AdversaryEnv, member *node.Node)
}

// AdversaryEnv is what an Adversary is given of its client.
type AdversaryEnv struct {
	Dir        string             // the client's data directory
	Host       *host.Host         // its libp2p host
	ManagerKey crypto.PubKey      // opens the manager's signed tasks
	Nickname   string             // the name its uploads carry
	Authority  zonecert.Authority // the manager's map of zones
	Heartbeat  time.Duration      // the overlay's heartbeat interval
	Log        *slog.Logger
	// SecondIdentity returns the uploader of another identity, one that
	// holds no task, made on first use and kept.
	SecondIdentity func(context.Context) (taskmgr.Uploader, error)
}

// adversaryEnv returns what c's adversary is given; network mode only.
func (c *Client) adversaryEnv(nickname string, heartbeat time.Duration) AdversaryEnv {
	if heartbeat <= 0 {
		heartbeat = node.DefaultHeartbeat
	}
	var (
		mu     sync.Mutex
		second *upload.Uploader
	)
	return AdversaryEnv{Dir: c.dirs.Data, Host: c.net.h, ManagerKey: c.net.key, Nickname: nickname,
		Authority: zoneAuthority{c.net}, Heartbeat: heartbeat, Log: c.log,
		SecondIdentity: func(ctx context.Context) (taskmgr.Uploader, error) {
			mu.Lock()
			defer mu.Unlock()
			if second != nil {
				return second, nil
			}
			ip := c.opts.SourceIP
			if ip == "" {
				ip = "127.0.0.1"
			}
			h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/" + ip + "/tcp/0"}, NoDHT: true, Logger: c.log})
			if err != nil {
				return nil, err
			}
			h.Peerstore().AddAddrs(c.net.manager, c.net.h.Peerstore().Addrs(c.net.manager), time.Hour)
			second = &upload.Uploader{Host: h, Storage: c.net.manager, Manager: c.net.key, Nickname: nickname}
			return second, nil
		}}
}
