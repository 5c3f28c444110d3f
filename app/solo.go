package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

// Mode is how the client takes part.
type Mode string

// The client's modes.
const (
	// ModeSolo runs a manager, its storage module and a one-peer overlay
	// inside the client: the default without a network profile.
	ModeSolo Mode = "solo"
	// ModeNetwork takes part in the network of the stored profile.
	ModeNetwork Mode = "network"
	// ModeLocal joins no network: tasks come from the seeds file and
	// results are kept under the data directory with unsigned receipts.
	ModeLocal Mode = "local"
)

// soloListen is where solo mode's manager and peer listen: nobody else
// needs to reach them.
var soloListen = []string{"/ip4/127.0.0.1/tcp/0"}

// ManagerDir is where the manager's data lives under a data directory,
// the solo client's embedded one and `hivecrawl manager`'s alike, so
// `hivecrawl seed add --manager` finds either.
func ManagerDir(d paths.Dirs) string { return filepath.Join(d.Data, "manager") }

// readProfile returns the stored network profile, nil when there is none.
func readProfile(d paths.Dirs) (*profile.Profile, error) {
	path := filepath.Join(d.Config, profile.FileName)
	p, err := profile.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w (run 'hivecrawl join PROFILE' again, or 'hivecrawl leave' for solo mode)", err)
	}
	return p, nil
}

// newSolo starts solo mode's manager and returns it with its profile.
//
// Solo mode sets its own politeness policy: the User-Agent names this
// client's version, and the wait between requests is the manager's
// default floor (1 s) or the user's longer one. Only with the test-only
// switches (loopback, test nets) may the user's wait go below the floor,
// for fixtures.
//
// Storing a result is admitted against mem, the budget page parses are
// admitted against: both run in the client's process, under its memory
// cap.
func newSolo(ctx context.Context, d paths.Dirs, opts Options, userDelay time.Duration, mem storage.Admitter, log *slog.Logger) (*manager.Manager, *profile.Profile, error) {
	mo := opts.Manager
	mo.Storage.Admit = mem
	mo.Dir = ManagerDir(d)
	mo.Listen = soloListen
	mo.AllowLoopback = true
	// Sites the user adds are held to the crawler's rule: a loopback
	// seed is refused at once unless the crawler may dial it.
	mo.SeedAllow = netguard.Allowing(opts.AllowLoopback, opts.AllowTestNets)
	mo.Solo = true
	// The user crawls the sites they chose: links to other hosts create
	// no channels unless a channel is set to follow them.
	mo.Schedule.Channels.StayOnHost = true
	mo.Storage.Search = true
	// One volunteer crawling the sites its user chose: the caps per
	// address and domain are for a swarm, unless the user sets them.
	if mo.Politeness.PerIP == 0 && mo.Politeness.PerDomain == 0 {
		mo.Politeness.PerIP, mo.Politeness.PerDomain, mo.Politeness.IPWait = -1, -1, -1
	}
	if mo.Name == "" {
		mo.Name = "solo"
	}
	mo.Logger = log
	if mo.Version == "" {
		mo.Version = opts.Version
	}
	if mo.Politeness.Delay == 0 && (opts.AllowLoopback || opts.AllowTestNets) {
		mo.Politeness.Delay = userDelay
	}
	if opts.Now != nil {
		mo.Now = opts.Now
	}
	m, err := manager.New(ctx, mo)
	if err != nil {
		return nil, nil, fmt.Errorf("start solo mode's manager: %w", err)
	}
	p, err := m.WriteProfile()
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("start solo mode's manager: %w", err)
	}
	return m, p, nil
}

// addSoloSeeds adds the seeds file's URLs to solo mode's manager, the
// way every site is added (manager.AddSites).
func addSoloSeeds(m *manager.Manager, seeds []Seed) error {
	urls := make([]string, len(seeds))
	for i, s := range seeds {
		urls[i] = s.URL.String()
	}
	if _, err := m.AddSites(urls); err != nil {
		return fmt.Errorf("add the seeds file's sites: %w", err)
	}
	return nil
}
