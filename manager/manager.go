package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/prom"
	"github.com/hivecrawl/hivecrawl/internal/semver"
	"github.com/hivecrawl/hivecrawl/internal/services"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/dispatch"
	"github.com/hivecrawl/hivecrawl/manager/leasedesk"
	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/manager/metrics"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/manager/peernets"
	"github.com/hivecrawl/hivecrawl/manager/placement"
	"github.com/hivecrawl/hivecrawl/manager/revoke"
	"github.com/hivecrawl/hivecrawl/manager/roster"
	"github.com/hivecrawl/hivecrawl/manager/rounds"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/manager/site"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/manager/taskbook"
	"github.com/hivecrawl/hivecrawl/manager/zones"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/task"
)

// Manager is the operator's service. Create it with New, run it with
// Serve; Serve closes it when its context ends.
type Manager struct {
	opts Options
	// minVersion is Options.Admission.MinClientVersion parsed; nil when unset.
	minVersion *semver.Version

	log     *slog.Logger
	key     crypto.PrivKey
	host    *host.Host
	db      *channels.DB
	store   *storage.Storage
	sub     *submit.Submitter
	members *members.Registry
	api     *operator.Server
	// keys are the volunteers' certified request-signing keys; dir serves
	// them to web sites when Options.Site.Directory is set.
	keys *botkeys.Registry
	// nets are the networks peers connected from, so that no check
	// goes to a peer linked to the result it checks (manager/peernets).
	nets *peernets.Book
	dir  *site.Server
	// inow takes IndexNow submissions when Options.Site.IndexNow is set.
	inow *site.Server
	// fetcher fetches the files sites serve as proofs (opt-out tokens,
	// IndexNow keys), with the User-Agent as it stands then.
	fetcher site.Fetcher
	// wake asks Serve for a schedule round before the next tick.
	wake chan struct{}
	// search indexes the stored text when Options.Storage.Search is set.
	search *search.Index
	// bounds trains the CAN space's bounds when Options.Placement.Bounds turn on
	// coordinate-aware placement; nil otherwise.
	bounds *placement.Trainer
	// shared splits the work with the other managers of a shared
	// database (Options.DB); nil otherwise.
	shared *roster.Roster
	// zones is the certified zone map, the one authority of who holds
	// which zone.
	zones *zones.Authority
	// metrics are served at GET /metrics on the local API.
	metrics *metrics.Metrics
	// thru is the status page's throughput over the last hour.
	thru metrics.Throughput

	// tell tells crawlers their leases ended (an opt-out, a withdrawn
	// key); Close stops it.
	tell *revoke.Teller

	closeOnce sync.Once
	closeErr  error

	// dispatch hands the open tasks to the overlay.
	dispatch *dispatch.Dispatcher
	// desk answers the crawlers' lease requests.
	desk *leasedesk.Desk
	// sched is the recrawl schedule: the strategy over the channels
	// and the rounds it starts.
	sched *rounds.Schedule
	// book closes tasks with their outcomes and tells sched.
	book *taskbook.Book

	mu    sync.Mutex // guards the fields below
	peers map[peer.ID]time.Time
}

// New opens the manager's files, starts its libp2p host and local API
// listener and writes the network profile. The caller must Serve it (or
// Close it).
func New(ctx context.Context, opts Options) (_ *Manager, err error) {
	defaultUA := opts.Politeness.Policy.UserAgent == ""
	opts = opts.withDefaults()
	if opts.Dir == "" {
		return nil, errors.New("new manager: no data directory")
	}
	minVersion, err := opts.minClientVersion()
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	if err := opts.checkFloor(); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	// m, not a named result: every "return nil, err" below would set a
	// named result to nil before the deferred Close ran.
	var as *peernets.ASTable
	if opts.Checks.ASN != "" {
		if as, err = peernets.ReadASTable(opts.Checks.ASN); err != nil {
			return nil, fmt.Errorf("new manager: %w", err)
		}
	}
	m := &Manager{opts: opts, minVersion: minVersion, log: opts.Logger, peers: map[peer.ID]time.Time{}, nets: peernets.New(as), wake: make(chan struct{}, 1)}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	keyPath := filepath.Join(opts.Dir, KeyFile)
	if m.key, err = host.LoadOrCreateKey(keyPath); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	switch {
	case opts.DB == "":
		m.db, err = channels.Open(filepath.Join(opts.Dir, ChannelsFile), opts.Schedule.Channels, zones.Bucket)
	case opts.Solo:
		err = errors.New("solo mode keeps its database in a file")
	default:
		m.db, err = channels.OpenPostgres(ctx, opts.DB, opts.Schedule.Channels, zones.Bucket)
	}
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.metrics = metrics.New(metrics.Sources{
		DB:       m.db,
		Interval: func(i int) (time.Duration, bool) { return m.sched.Interval(i) },
		Totals:   func() (storage.Totals, error) { return m.store.Totals() },
		Sends:    func() (int, int) { return m.dispatch.Counts() },
		Members:  func() int { return len(m.members.Members()) },
		Peers:    func() int { return len(m.host.Network().Peers()) },
		Now:      opts.Now,
	})
	m.host, err = host.New(ctx, host.Config{ListenAddrs: opts.Listen, KeyFile: keyPath, Public: true, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.tell = revoke.New(m.host, m.log)
	m.host.Network().Notify(&network.NotifyBundle{ConnectedF: func(_ network.Network, c network.Conn) {
		m.mu.Lock()
		m.peers[c.RemotePeer()] = m.opts.Now()
		m.mu.Unlock()
		m.nets.Saw(c.RemotePeer(), c.RemoteMultiaddr(), m.opts.Now())
	}})
	// In the channel database's PostgreSQL database when there is one, so
	// every manager of it serves the same directory and refuses the same
	// withdrawn peers.
	if m.keys, err = botkeys.OpenWith(ctx, botkeys.Options{Dir: opts.Dir, Postgres: opts.DB, Now: opts.Now}); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.fetcher = site.Fetcher{Client: site.FileClient(opts.AllowLoopback), UserAgent: func() string { return m.opts.Politeness.Policy.UserAgent }}
	if err := m.startSiteServer(defaultUA); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	if opts.Site.IndexNow != "" {
		if m.inow, err = site.Listen("IndexNow", opts.Site.IndexNow, site.IndexNowHandler(m.indexNowConfig())); err != nil {
			return nil, fmt.Errorf("new manager: %w", err)
		}
	}
	m.sched, err = rounds.New(m.db, rounds.Options{
		Strategy: opts.Schedule.Strategy, Recrawl: opts.Schedule.Recrawl, PieceAbove: opts.Schedule.PieceAbove, Pieces: opts.Schedule.Pieces,
		Delay: opts.Politeness.Delay, Slack: opts.Schedule.Slack, Logger: m.log,
		Issued: m.metrics.RoundsIssued,
	}, opts.Now())
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.book = taskbook.New(taskbook.Config{
		DB: m.db, Schedule: m.sched, Key: m.key.GetPublic(),
		Delay: opts.Politeness.Delay, Slack: opts.Schedule.Slack,
		ClockSkew: opts.Leases.ClockSkew, CountFrom: opts.Now().Add(opts.Leases.RestartGrace),
		Forfeit: func(p, why string) error { return m.store.Forfeit(p, why) },
		Counts:  m.metrics, Now: opts.Now, Logger: m.log,
	})
	sopts := storage.Options{Dir: opts.Dir, Postgres: opts.DB, Key: m.key, Manager: m.key.GetPublic(), Tasks: m.book,
		MaxFileSize: opts.Storage.MaxWARCFile, StoreRaw: opts.Storage.StoreRaw, Admit: opts.Storage.Admit, OptOuts: m.db, Now: opts.Now, Logger: opts.Logger}
	if opts.Storage.Store != "" {
		if sopts.Archive, err = openStore(ctx, opts.Storage.Store, opts.Storage.Getenv); err != nil {
			return nil, fmt.Errorf("new manager: %w", err)
		}
	}
	if !opts.Solo && !opts.Checks.NoValidation {
		v := opts.Checks.Validation
		v.Checks, v.OnInvalid = m.book, m.resultFailed
		sopts.Validation = &v
	}
	if opts.Storage.Search {
		var moved string
		m.search, moved, err = search.Open(filepath.Join(opts.Dir, SearchDir))
		if err != nil {
			return nil, fmt.Errorf("new manager: %w", err)
		}
		if moved != "" {
			m.log.Warn("Search index did not open; a new one is made and the old one kept aside (pages are searchable again as they are recrawled)", "moved_to", moved)
		}
		sopts.Search = m.search
	}
	m.store, err = storage.New(sopts)
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.store.Attach(m.host)
	m.members = members.NewRegistry(m.host, opts.Now)
	if opts.DB != "" {
		m.shared = roster.New(roster.Config{DB: m.db, Members: m.members, Self: m.host.ID().String(), Addrs: m.host.P2PAddrs,
			Tick: opts.Schedule.Tick, Logger: m.log, Changed: func() error { _, err := m.WriteProfile(); return err }})
	}
	m.members.SetAdmit(m.outdated)
	// In the channel database's store: one transaction per change, shared
	// with the other managers of a PostgreSQL database. Solo mode has one
	// too: its one client holds the whole space by the same rules.
	m.zones, err = zones.New(m.db.Store(), m.key, zones.Options{Dim: opts.Placement.Submit.Dim, Now: opts.Now,
		Live: zones.Ping(m.host, zones.PingTimeout)})
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.members.SetZones(m.zones)
	m.host.SetStreamHandler(entry.Protocol, m.members.Handle)
	m.host.SetStreamHandler(report.Protocol, report.Handler(m.book.Report))
	switch opts.Placement.Assignment {
	case AssignCAN:
	case AssignHash:
		opts.Placement.Submit.Direct = m.hashDirect
	default:
		return nil, fmt.Errorf("new manager: unknown assignment %q (want %s or %s)", opts.Placement.Assignment, AssignCAN, AssignHash)
	}
	if opts.Placement.Bounds != nil {
		if m.bounds, err = placement.NewTrainer(m.db, m.key, m.members.SetBounds, *opts.Placement.Bounds, m.log); err != nil {
			return nil, fmt.Errorf("new manager: %w", err)
		}
		if opts.Placement.Submit.Locator == nil {
			r := rand.New(rand.NewPCG(uint64(opts.Now().UnixNano()), 0x6c6f63))
			loc := rtt.NewLocator(m.host, m.bounds.Current().Bounds, r)
			opts.Placement.Submit.Locator = placement.NewLocator(m.members, loc, m.db, m.bounds.Current, m.mapAnchor, opts.Now, r)
		}
	}
	if opts.Placement.Submit.Owner == nil {
		opts.Placement.Submit.Owner = m.zones.Owner
	}
	if opts.Placement.Submit.Now == nil {
		opts.Placement.Submit.Now = opts.Now
	}
	m.sub = submit.New(m.host, opts.Placement.Submit)
	m.desk = leasedesk.New(leasedesk.Config{
		DB: m.db, Key: m.key.GetPublic(), Dim: m.sub.Options().Dim,
		Times: opts.leaseTimes(0), RenewEvery: opts.Leases.LeaseHold / 3, Now: opts.Now, Logger: m.log,
		Owner: m.zones.Owner, Linked: m.nets.Linked,
		Refusal: m.keyRefusal, Outdated: m.outdated, Certify: m.certify,
	})
	m.host.SetStreamHandler(lease.Protocol, lease.Handler(m.desk.Decide))
	m.dispatch = dispatch.New(dispatch.Config{
		DB: m.db, Submitter: m.sub, Key: m.key, Policy: func() task.Policy { return m.opts.Politeness.Policy }, StoreRaw: opts.Storage.StoreRaw,
		Times: opts.leaseTimes, Now: opts.Now, Logger: m.log, Mine: m.mine,
		Members: m.members, Anchor: m.mapAnchor, Withdrawn: m.withdrawn, Linked: m.nets.Linked, Record: m.store.PeerRecord,
	})
	if _, err := m.WriteProfile(); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	if m.api, err = operator.Listen(m, opts.API, filepath.Join(opts.Dir, APIFile), prom.Handler(m.metrics.Registry(), m.log), opts.Now, m.log); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	return m, nil
}

// ID returns the manager's peer ID.
func (m *Manager) ID() peer.ID { return m.host.ID() }

// PublicKey returns the key tasks and receipts verify with.
func (m *Manager) PublicKey() crypto.PubKey { return m.key.GetPublic() }

// Addrs returns the manager's listen addresses with /p2p/<id>.
func (m *Manager) Addrs() []string { return m.host.P2PAddrs() }

// Host returns the manager's libp2p host.
func (m *Manager) Host() *host.Host { return m.host }

// Channels returns the channel database.
func (m *Manager) Channels() *channels.DB { return m.db }

// Search returns the full-text index of the stored text; nil unless
// Options.Storage.Search is set.
func (m *Manager) Search() *search.Index { return m.search }

// Storage returns the storage module.
func (m *Manager) Storage() *storage.Storage { return m.store }

// Dir returns the manager's data directory.
func (m *Manager) Dir() string { return m.opts.Dir }

// APIURL returns the local API's base URL.
func (m *Manager) APIURL() string { return m.api.URL() }

// APIToken returns the token state changes need.
func (m *Manager) APIToken() string { return m.api.Token() }

// AddSeeds adds seed URLs (see channels.DB.AddSeeds) and returns the
// channels created. It checks only that they parse: sites a person adds
// go through AddSites.
func (m *Manager) AddSeeds(seeds []string) ([]channels.Channel, error) {
	return m.db.AddSeeds(seeds, m.opts.Now())
}

// AddSites adds the sites a person names by seed URLs, all or none: every
// URL passes channels.CheckSeed under Options.SeedAllow first, and a
// refusal (wrapping channels.ErrBadSeed) names each URL refused and why.
// Every way of adding a site ends here: the local API, and in solo mode
// the client's commands, dashboard and seeds file.
func (m *Manager) AddSites(urls []string) (channels.Added, error) {
	seeds, err := channels.CheckSeeds(urls, m.opts.SeedAllow)
	if err != nil {
		return channels.Added{}, err
	}
	a, err := m.db.Add(seeds, m.opts.Now())
	if err != nil {
		return channels.Added{}, err
	}
	m.log.Info("Seeds added", "urls", len(urls), "new_channels", len(a.Created), "known", len(a.Known), "opted_out", len(a.OptedOut))
	return a, nil
}

// Serve runs the manager's services (the local API, the site servers, the
// zone map's expiry and the schedule; internal/services, as the client
// runs its own) until ctx ends or one fails, then closes the manager.
func (m *Manager) Serve(ctx context.Context) error {
	defer m.Close()
	g := services.New(ctx)
	g.Go("local API", m.api.Serve)
	for _, s := range []*site.Server{m.dir, m.inow} {
		if s != nil {
			g.Go(s.Name(), s.Run)
		}
	}
	if m.zones != nil {
		g.Go("zone map", func(ctx context.Context) error { m.serveZones(ctx); return nil })
	}
	g.Go("schedule", m.schedule)
	return g.Wait()
}

// schedule runs a schedule round every Options.Schedule.Tick, or at once when
// woken (Wake), until ctx ends; then it saves the strategy's state.
func (m *Manager) schedule(ctx context.Context) error {
	defer m.sched.Save()
	t := time.NewTicker(m.opts.Schedule.Tick)
	defer t.Stop()
	for {
		if err := m.Tick(ctx); err != nil {
			m.log.Warn("Schedule round failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-m.wake:
		}
	}
}

// Wake asks Serve for a schedule round now (a channel to crawl at once),
// not at the next tick.
func (m *Manager) Wake() {
	select {
	case m.wake <- struct{}{}:
	default: // a round is asked for already
	}
}

// Close stops the host and closes the files; closing again returns the
// first Close's result. It is bounded by libp2p's shutdown timeouts and,
// with Options.Storage.Store, by the storage module's upload of the last WARC
// files (storage.DefaultCloseTimeout).
func (m *Manager) Close() error {
	m.closeOnce.Do(func() { m.closeErr = m.close() })
	return m.closeErr
}

// close is Close's one run: Serve closes the manager when it ends, and an
// embedding client closes it again.
func (m *Manager) close() error {
	if m.tell != nil {
		m.tell.Close()
	}
	var errs []error
	if m.api != nil {
		errs = append(errs, m.api.Close())
	}
	if m.dir != nil {
		errs = append(errs, m.dir.Close())
	}
	if m.inow != nil {
		errs = append(errs, m.inow.Close())
	}
	if m.host != nil {
		errs = append(errs, m.host.Close())
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
	}
	if m.search != nil {
		errs = append(errs, m.search.Close())
	}
	if m.shared != nil && m.db != nil {
		errs = append(errs, m.shared.Leave())
	}
	if m.db != nil {
		errs = append(errs, m.db.Close())
	}
	if m.keys != nil {
		errs = append(errs, m.keys.Close())
	}
	return errors.Join(errs...)
}
