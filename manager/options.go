package manager

import (
	"log/slog"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/rounds"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// Strategy names accepted by Options.Schedule.Strategy.
const (
	StrategyFixed      = rounds.StrategyFixed
	StrategyIIR        = rounds.StrategyIIR
	StrategyICR        = rounds.StrategyICR
	StrategyController = rounds.StrategyController
)

// Defaults for zero Options fields.
const (
	DefaultTick       = 5 * time.Second
	DefaultSlack      = 10 * time.Minute
	DefaultPieceAbove = 5000
	DefaultPieces     = 3
	DefaultMaxPeriod  = 6 * time.Hour
	DefaultAPI        = "127.0.0.1:0"
	DefaultStrategy   = StrategyController
	// DefaultLeaseHold is how long a claim or renewal keeps a host's
	// lease; DefaultStartWithin caps how long a task may wait to start
	// (its recrawl interval, when shorter); DefaultClockSkew is the
	// allowance for crawler clocks behind the manager's.
	DefaultLeaseHold   = 5 * time.Minute
	DefaultStartWithin = time.Hour
	DefaultClockSkew   = time.Minute
	// DefaultRestartGrace is `hivecrawl manager`'s Options.Leases.RestartGrace.
	DefaultRestartGrace = time.Minute
	// DefaultContact is the contact URL of the default User-Agent.
	DefaultContact = crawler.ContactURL
)

// Options configure a Manager.
type Options struct {
	// Dir is the manager's data directory: key, databases, WARC files,
	// network profile and API info. Required.
	Dir string `json:"dir"`
	// Listen are the libp2p listen multiaddrs; empty = p2p/host defaults.
	Listen []string `json:"listen,omitempty"`
	// Bootstrap are other peers the network profile names beside the
	// manager, as multiaddrs ending in /p2p/<peer ID>: long-lived public
	// volunteers, say, through which newcomers still join the overlay
	// while the manager is down.
	Bootstrap []string `json:"bootstrap,omitempty"`
	// API is the local API's address, always on loopback. Default
	// 127.0.0.1:0 (a free port, written to Dir/api.json).
	API string `json:"api,omitempty"`
	// DB, when set, is a PostgreSQL database (postgres://user:pass@host/db)
	// holding the channels, tasks, leases, receipts and credit instead of
	// the files in Dir. Several managers of one network may share it, each
	// with its own Dir and a copy of the same key (KeyFile); they split
	// the channels between them (manager/roster).
	DB string `json:"-"`
	// Name labels the network in its profile.
	Name string `json:"name,omitempty"`

	// The services' settings, a group each; zero fields take defaults.
	Schedule   ScheduleOptions   `json:"schedule"`
	Leases     LeaseOptions      `json:"leases"`
	Politeness PolitenessOptions `json:"politeness"`
	Placement  PlacementOptions  `json:"placement"`
	Storage    StorageOptions    `json:"storage"`
	Checks     CheckOptions      `json:"checks"`
	Site       SiteOptions       `json:"site"`
	Admission  AdmissionOptions  `json:"admission"`

	// Switches for a network on one machine, and the embedding client's.

	// AllowLoopback keeps loopback addresses in the network profile (for
	// a network on one machine; tests). Otherwise they are left out when
	// others exist.
	AllowLoopback bool `json:"allow_loopback,omitempty"`
	// AllowTestNets treats the documentation ranges as public addresses
	// (test only: the NAT lab, swarm/netlab), in the profile and in
	// the politeness floor's checks.
	AllowTestNets bool `json:"allow_test_nets,omitempty"`
	// SeedAllow lets seed URLs added through AddSites (the local API's
	// POST /api/seeds) name hosts beyond public ones: loopback or the
	// test nets (channels.CheckSeed). Zero: public hosts only. Test
	// fixtures only; solo mode sets it from the client's switches.
	SeedAllow netguard.Allow `json:"-"`
	// Version is the software version the default User-Agent names.
	Version string `json:"-"`
	// Solo marks the manager embedded in a single client (solo mode): its
	// overlay is that client alone and ends with it, so a restart never
	// waits for members to renew.
	Solo bool `json:"-"`
	// Now is the clock; default time.Now.
	Now    func() time.Time `json:"-"`
	Logger *slog.Logger     `json:"-"`
}

// ScheduleOptions tune the recrawl schedule (manager/rounds): the strategy,
// its rounds and the channel database's limits.
type ScheduleOptions struct {
	// Strategy is fixed, iir, icr or controller (design.md §9's controller,
	// the best performer in the simulations). Default controller.
	Strategy string `json:"strategy,omitempty"`
	// Recrawl tunes the strategy. MaxPeriod 0 = 6h, so reassignment also
	// happens on a timer when an overloaded swarm never completes the
	// paper's trigger.
	Recrawl recrawl.Config `json:"recrawl"`
	// Channels holds the channel database's limits.
	Channels channels.Options `json:"channels"`
	// PieceAbove is the page count above which a host is split into
	// Pieces pieces. Defaults 5000 and 3.
	PieceAbove int `json:"piece_above,omitempty"`
	Pieces     int `json:"pieces,omitempty"`
	// Tick is the scheduling period. Default 5s.
	Tick time.Duration `json:"tick,omitempty"`
	// Slack is added to a task's deadline. Default 10 minutes.
	Slack time.Duration `json:"slack,omitempty"`
}

// LeaseOptions tune the host leases the lease desk grants
// (manager/leasedesk, docs/developer/leases.md) and when a task whose
// lease ended counts lost.
type LeaseOptions struct {
	// LeaseHold is how long a claim or renewal keeps a host's lease;
	// crawlers renew every third of it. Default 5 minutes.
	LeaseHold time.Duration `json:"lease_hold,omitempty"`
	// StartWithin caps how long after its lease is granted a task may be
	// started (its recrawl interval, when shorter). Default 1 hour.
	StartWithin time.Duration `json:"start_within,omitempty"`
	// ClockSkew is how far behind the manager's a crawler's clock may run:
	// a lease counts as live for this long after it expires. Default 1m.
	ClockSkew time.Duration `json:"clock_skew,omitempty"`
	// RestartGrace is how long after it starts the manager counts no task
	// lost: a crawler that finished under its lease while the manager
	// was down holds its result until the manager answers, then delivers
	// it within seconds; counted lost first, that result would be a late
	// duplicate and its channel crawled again. It only delays freeing
	// the hosts of tasks really lost. 0 (the zero Options) counts at
	// once; `hivecrawl manager` defaults to DefaultRestartGrace.
	RestartGrace time.Duration `json:"restart_grace,omitempty"`
}

// PolitenessOptions are what the operator promises the web: the policy
// and wait signed into every task, and the caps per address and per
// domain the lease desk keeps across the swarm.
type PolitenessOptions struct {
	// Policy is the politeness policy signed into every task: User-Agent,
	// robots.txt product token and the key directory's origin. Empty
	// fields take defaults from Version.
	Policy task.Policy `json:"policy,omitzero"`
	// Delay is the operator's minimum politeness wait between requests
	// to one host, signed into every task; crawlers may only wait longer.
	// Default 1s; New refuses less than floor.MinDelay (1s) unless a
	// test-only switch (AllowLoopback, AllowTestNets) is set.
	Delay time.Duration `json:"delay,omitempty"`
	// PerIP and PerDomain cap the leases running at once on hosts at one
	// IP address and on hosts of one registrable domain, swarm-wide
	// (docs/developer/leases.md); 0 = DefaultPerIP and DefaultPerDomain (2),
	// negative = no cap.
	PerIP     int `json:"per_ip,omitempty"`
	PerDomain int `json:"per_domain,omitempty"`
	// SharedIP is the cap of an address seen serving more than
	// SharedAbove registrable domains (a shared front end); 0 =
	// DefaultSharedIP (8) and DefaultSharedAbove (20), negative = no
	// such rule.
	SharedIP    int `json:"shared_ip,omitempty"`
	SharedAbove int `json:"shared_above,omitempty"`
	// IPWait is the least time between the start or end of one lease on
	// an address or domain and the start of the next; 0 = Delay,
	// negative = none.
	IPWait time.Duration `json:"ip_wait,omitempty"`
}

// PlacementOptions say where tasks go in the overlay (manager/submit,
// manager/placement).
type PlacementOptions struct {
	// Submit tunes submission (CAN dimension, TTL, Locator).
	Submit submit.Options `json:"-"`
	// Bounds, when set, turn on coordinate-aware placement: they go into
	// the network profile, peers move to their mapped coordinate, and web
	// hosts are located by member peers' RTT measurements (unless
	// Submit.Locator is set). Nil places hosts and peers by hashes.
	Bounds *coord.Bounds `json:"bounds,omitempty"`
	// Assignment is AssignCAN (default) or AssignHash, the consistent-
	// hashing baseline for comparisons.
	Assignment string `json:"assignment,omitempty"`
}

// StorageOptions tune the storage module (manager/storage), which takes
// the crawlers' uploads and signs their receipts.
type StorageOptions struct {
	// MaxWARCFile rotates WARC files; 0 = storage default (1 GiB).
	MaxWARCFile int64 `json:"max_warc_file,omitempty"`
	// Store is where closed WARC files go: "" keeps them in Dir/warc;
	// "s3://bucket/prefix" uploads them, with a CDXJ index each, to an
	// S3-compatible object store whose endpoint and credentials come from
	// the AWS variables (docs/operator/storage.md). They are written to Dir/warc
	// first either way.
	Store string `json:"store,omitempty"`
	// Getenv reads the AWS variables for Store; default os.Getenv.
	Getenv func(string) string `json:"-"`
	// StoreRaw asks crawlers for the raw HTTP response of every page whose
	// text they upload (task.Task.Raw) and stores it as a WARC response
	// record beside the text. Uploads grow by the compressed HTML; clients
	// older than the task field refuse such tasks.
	StoreRaw bool `json:"store_raw,omitempty"`
	// Admit, when set, admits the storing of each upload against a
	// memory budget (storage.Options.Admit): solo mode passes the
	// client's, so that storing a result and parsing pages share its
	// memory cap.
	Admit storage.Admitter `json:"-"`
	// Search indexes the stored text for full-text search (solo mode).
	Search bool `json:"-"`
}

// CheckOptions tune the spot-checks of results (manager/storage's
// validation) and to whom they go.
type CheckOptions struct {
	// ASN is the path of an AS table ("PREFIX ASN" lines, peernets.ASTable): with
	// it no spot-check goes to a peer of the autonomous system of the
	// result's crawler. "" knows no AS; /24s and /48s still link peers.
	ASN string `json:"asn,omitempty"`
	// Validation tunes the spot-checks of results (storage.Validation;
	// its Checks and OnInvalid are the manager's). Results are checked
	// unless NoValidation is set, or in solo mode, where the only crawler
	// is the user's own.
	Validation   storage.Validation `json:"-"`
	NoValidation bool               `json:"no_validation,omitempty"`
}

// SiteOptions tune the servers web sites reach (manager/site): the key
// directory, the bot page, the self-service opt-out and IndexNow.
type SiteOptions struct {
	// Directory is the address where the manager serves web sites its
	// key directory (Web Bot Auth: the request-signing keys of the
	// volunteers it certified), its bot page and its signature agent card.
	// Unlike API it need not be loopback. By default it is the first
	// listen address's IP and a port chosen once and kept in
	// SiteAddrFile. Policy.SignatureAgent defaults to its origin; an
	// operator behind a TLS front end names the public origin there
	// instead. A solo-mode or Unsigned manager serves none.
	Directory string `json:"directory,omitempty"`
	// Unsigned sends volunteers out without Web Bot Auth signatures: no
	// key directory is served, and sites cannot verify that requests come
	// from this network. It is logged as a warning at every start.
	Unsigned bool `json:"unsigned,omitempty"`
	// Contact is how a site owner reaches the operator (an e-mail address
	// or a URL), shown on the bot page and in the signature agent card;
	// default DefaultContact.
	Contact string `json:"contact,omitempty"`
	// IndexNow, when set, is the address where the manager takes IndexNow
	// submissions from web sites (GET or POST /indexnow, docs/operator/indexnow.md).
	// Like Directory it need not be loopback. Key files are fetched from
	// public addresses only, unless AllowLoopback is set (tests).
	IndexNow string `json:"indexnow,omitempty"`
}

// AdmissionOptions say which clients the network gives work to.
type AdmissionOptions struct {
	// MinClientVersion, when set, is the oldest client release (X.Y.Z)
	// the network gives work to: an older client, or one that states no
	// version, is told why and how to update when it asks to enter the
	// overlay, and its lease claims are refused. "" admits every version.
	MinClientVersion string `json:"min_client_version,omitempty"`
	// UpdateHint is what an outdated client is told to do: a command or
	// the address of the operator's download page. Default
	// DefaultUpdateHint.
	UpdateHint string `json:"update_hint,omitempty"`
}

func (o Options) withDefaults() Options {
	orZero(&o.API, DefaultAPI)
	orZero(&o.Version, "dev")
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &o.Schedule
	orZero(&s.Strategy, DefaultStrategy)
	orZero(&s.Recrawl.MaxPeriod, DefaultMaxPeriod)
	orZero(&s.Recrawl.Groups, recrawl.DefaultGroups)
	s.Channels.Groups = s.Recrawl.Groups
	orPositive(&s.PieceAbove, DefaultPieceAbove)
	orPositive(&s.Pieces, DefaultPieces)
	orPositive(&s.Tick, DefaultTick)
	orPositive(&s.Slack, DefaultSlack)
	l := &o.Leases
	orPositive(&l.LeaseHold, DefaultLeaseHold)
	orPositive(&l.StartWithin, DefaultStartWithin)
	orPositive(&l.ClockSkew, DefaultClockSkew)
	p := &o.Politeness
	orPositive(&p.Delay, time.Second)
	orZero(&p.PerIP, DefaultPerIP)
	orZero(&p.PerDomain, DefaultPerDomain)
	orZero(&p.SharedIP, DefaultSharedIP)
	orZero(&p.SharedAbove, DefaultSharedAbove)
	orZero(&p.IPWait, p.Delay)
	orZero(&p.Policy.Token, crawler.ProductToken)
	orZero(&p.Policy.UserAgent, DefaultUserAgent(o.Version, DefaultContact))
	orZero(&o.Placement.Assignment, AssignCAN)
	if o.Storage.Getenv == nil {
		o.Storage.Getenv = os.Getenv
	}
	orZero(&o.Site.Contact, DefaultContact)
	orZero(&o.Admission.UpdateHint, DefaultUpdateHint)
	return o
}

// File names in the data directory.
const (
	KeyFile      = "manager.key"
	ChannelsFile = "channels.db"
	ProfileFile  = "profile.json"
	// SiteAddrFile keeps the address the default site server listens
	// on, so that its origin, which volunteers name in every signed
	// request, survives a restart.
	SiteAddrFile = "site-address"
	APIFile      = "api.json"
	// SearchDir is the full-text index (Options.Storage.Search).
	SearchDir = "search.bleve"
)

// DefaultUserAgent is the User-Agent a manager signs into tasks unless its
// operator names another: product token, semantic version and a contact
// URL (crawler.UserAgent).
func DefaultUserAgent(version, contact string) string {
	return crawler.UserAgent(version, contact)
}

// leaseTimes are the lease settings for a task that may wait up to
// interval to start.
func (o Options) leaseTimes(interval time.Duration) channels.LeaseTimes {
	start := o.Leases.StartWithin
	if interval > 0 && interval < start {
		start = interval
	}
	return channels.LeaseTimes{Hold: o.Leases.LeaseHold, StartWithin: start, Skew: o.Leases.ClockSkew, Gap: o.Politeness.Delay, Limits: channels.Limits{
		PerIP: max(o.Politeness.PerIP, 0), PerDomain: max(o.Politeness.PerDomain, 0),
		SharedIP: max(o.Politeness.SharedIP, 0), SharedAbove: max(o.Politeness.SharedAbove, 0),
		Gap: max(o.Politeness.IPWait, 0),
	}}
}

// Defaults of the limits per address and per domain (Options.Politeness.PerIP and
// the rest).
const (
	DefaultPerIP       = 2
	DefaultPerDomain   = 2
	DefaultSharedIP    = 8
	DefaultSharedAbove = 20
)

// orZero sets *v to def when *v is the zero value.
func orZero[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// orPositive sets *v to def when *v is not positive.
func orPositive[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}
