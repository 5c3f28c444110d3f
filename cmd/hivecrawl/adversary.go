//go:build adversary

// The test kit's dishonest volunteers, in a program built with
// `go build -tags adversary ./cmd/hivecrawl`: hivecrawl run --cheat MODE,
// --cheat-pair DIR and --hijack, which hivecrawl demo --cheaters and
// --hijackers hand their volunteers. No installed program has them.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/testkit/cheat"
	"github.com/hivecrawl/hivecrawl/testkit/hijack"
)

// adversaryBuilt reports whether this program carries the test kit's
// dishonest volunteers. This one does.
const adversaryBuilt = true

// adversaryFlags adds run's hidden flags that make the client a
// dishonest volunteer, and returns what they ask for (nil: honest).
func adversaryFlags(fs *flag.FlagSet) func() (*app.Adversary, error) {
	var (
		mode, pair string
		hijacker   bool
	)
	fs.StringVar(&mode, "cheat", "", "demo only: forge every uploaded result, or squat the leases of every task (`MODE`: "+strings.Join(adversary.Modes, ", ")+"), to show validation and leases at work")
	fs.StringVar(&pair, "cheat-pair", "", "demo only: with --cheat sybil, the `DIR` this identity shares with its twin, which runs with the same DIR")
	fs.BoolVar(&hijacker, "hijack", false, "demo only: attack the neighbours' zones (forged, tampered and replayed certificates, false reports), to show the manager's certificates at work")
	hide(fs, "cheat", "cheat-pair", "hijack")
	return func() (*app.Adversary, error) {
		if mode != "" && !adversary.Valid(mode) {
			return nil, fmt.Errorf("--cheat %q: want one of %s", mode, strings.Join(adversary.Modes, ", "))
		}
		if (mode == adversary.Sybil) != (pair != "") {
			return nil, errors.New("--cheat sybil and --cheat-pair DIR go together: the pair's two clients share DIR")
		}
		if mode == "" && !hijacker {
			return nil, nil
		}
		a := &app.Adversary{}
		switch mode {
		case "":
		case adversary.Squat:
			a.Runner = func(env app.AdversaryEnv) taskmgr.Runner { return cheat.Squatter{Dir: env.Dir} }
		default:
			a.Uploads = func(honest taskmgr.Uploader, env app.AdversaryEnv) taskmgr.Uploader {
				return &cheat.Uploader{Mode: mode, Honest: honest, Dir: env.Dir, Manager: env.ManagerKey,
					Pair: pair, Self: env.Host.ID().String(), Second: env.SecondIdentity}
			}
		}
		if hijacker {
			a.Overlay = func(ctx context.Context, env app.AdversaryEnv, member *node.Node) {
				j := &hijack.Hijacker{Host: env.Host, Node: member, Key: env.Host.Peerstore().PrivKey(env.Host.ID()),
					Authority: env.Authority, Every: env.Heartbeat, Renew: entry.RenewEvery,
					Path: filepath.Join(env.Dir, adversary.HijackFile), Log: env.Log}
				j.Run(ctx)
			}
		}
		return a, nil
	}
}
