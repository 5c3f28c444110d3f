package channels

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

// Defaults for zero Options fields.
const (
	DefaultPrior          = 4 * time.Hour
	DefaultMaxDepth       = 5
	DefaultMaxChannels    = 10000
	DefaultMaxPerFeedback = 10
	DefaultDomainBudget   = 100
	DefaultGroups         = 5
	// maxSeedsPerChannel bounds the inter-site URLs kept as seeds.
	maxSeedsPerChannel = 100
	// maxInterSiteDigests bounds a channel's known inter-site digests.
	maxInterSiteDigests = 20000
)

// Options configure a DB. Zero fields take the defaults.
type Options struct {
	// Prior is a new channel's change interval until one is estimated.
	// Default 4h, the middle group of paper 000's tables.
	Prior time.Duration `json:"prior"`
	// MaxDepth of new channels. Default 5.
	MaxDepth int `json:"max_depth"`
	// MaxChannels bounds the channels inter-site URLs may create (seeds
	// the operator adds are always taken). Default 10000.
	MaxChannels int `json:"max_channels"`
	// MaxPerFeedback bounds the channels one crawl's inter-site URLs may
	// create. Default 10; negative = none.
	MaxPerFeedback int `json:"max_per_feedback"`
	// DomainBudget bounds the channels inter-site URLs may create per
	// registrable domain, so a wildcard-subdomain trap makes a bounded
	// number of channels. Default 100; negative = none.
	DomainBudget int `json:"domain_budget"`
	// Groups is K; new channels start in the middle group. Default 5.
	Groups int `json:"groups"`
	// StayOnHost keeps links to other hosts from creating channels, for
	// every channel that did not choose otherwise (solo mode: the user
	// crawls the sites they chose).
	StayOnHost bool `json:"stay_on_host,omitempty"`
	// Plan chooses the known pages each recrawl fetches (pageplan.go).
	Plan PagePlan `json:"plan,omitzero"`
}

func (o Options) withDefaults() Options {
	if o.Prior <= 0 {
		o.Prior = DefaultPrior
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxChannels <= 0 {
		o.MaxChannels = DefaultMaxChannels
	}
	if o.MaxPerFeedback == 0 {
		o.MaxPerFeedback = DefaultMaxPerFeedback
	}
	if o.DomainBudget == 0 {
		o.DomainBudget = DefaultDomainBudget
	}
	if o.Groups <= 0 {
		o.Groups = DefaultGroups
	}
	o.Plan = o.Plan.withDefaults()
	return o
}

var (
	bucketChannels = []byte("channels") // ID → Channel
	bucketIndex    = []byte("index")    // uint64 index → ID
	bucketTasks    = []byte("tasks")    // task ID → Task
	bucketMeta     = []byte("meta")     // name → JSON
)

// buckets are the database's buckets.
var buckets = [][]byte{bucketChannels, bucketIndex, bucketTasks, bucketMeta, bucketHosts, bucketLocated, bucketRoster, bucketDue, bucketLimits, bucketOptOuts}

// DB is the channel database. Safe for concurrent use, and, on a shared
// store, by several managers at once: every change is one transaction.
type DB struct {
	db   kv.Store
	opts Options
}

// Open opens (creating if needed) the database in the bbolt file at path.
// Extra names more buckets, kept in the same store by other parts of the
// manager (see Store).
func Open(path string, opts Options, extra ...[]byte) (*DB, error) {
	db, err := kv.OpenBolt(path, &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "channel database",
		Advice: "it holds every channel and task; restore it from a backup, or move it aside to start a new network"}, withExtra(extra)...)
	if err != nil {
		return nil, err // boltfile.Open names the file, and says when another process holds it
	}
	if err := buildDueIndex(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open channel database %s: %w", path, err)
	}
	return &DB{db: db, opts: opts.withDefaults()}, nil
}

// OpenPostgres opens (creating if needed) the database in PostgreSQL at
// dsn, which several managers may share; extra are more buckets, as for
// Open.
func OpenPostgres(ctx context.Context, dsn string, opts Options, extra ...[]byte) (*DB, error) {
	db, err := kv.OpenPostgres(ctx, dsn, PostgresTable, withExtra(extra)...)
	if err != nil {
		return nil, fmt.Errorf("open channel database: %w", err)
	}
	if err := buildDueIndex(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open channel database: %w", err)
	}
	return &DB{db: db, opts: opts.withDefaults()}, nil
}

// withExtra is the database's buckets and extra.
func withExtra(extra [][]byte) [][]byte {
	return append(slices.Clip(buckets), extra...)
}

// Store returns the store the database is kept in, for the parts of the
// manager that keep their own buckets in it (named to Open) and so share
// its transactions' guarantees: one file, or one PostgreSQL table that
// several managers share.
func (d *DB) Store() kv.Store { return d.db }

// PostgresTable is the channel database's table in PostgreSQL.
const PostgresTable = "hivecrawl_channels"

// Conflicts returns how many transactions ran again after a conflict
// with another manager's (PostgreSQL); 0 for a file.
func (d *DB) Conflicts() int {
	if p, ok := d.db.(*kv.Postgres); ok {
		return p.Retries()
	}
	return 0
}

// Close closes the file.
func (d *DB) Close() error { return d.db.Close() }

// Options returns the options in force, defaults filled in.
func (d *DB) Options() Options { return d.opts }

// AddSeeds adds seed URLs (already parsed by ParseSeed or not): a URL on a
// new host creates a channel, one on a known host joins its seeds. It
// returns the channels created.
func (d *DB) AddSeeds(seeds []string, now time.Time) (created []Channel, err error) {
	a, err := d.Add(seeds, now)
	return a.Created, err
}

// Added is what Add did.
type Added struct {
	// Created are the channels made.
	Created []Channel
	// Known are the seeds that were seeds of their channel already (or
	// came twice): nothing changed for them.
	Known []string
	// OptedOut are the seeds on hosts that opted out: not added.
	OptedOut []string
}

// Add adds seed URLs as AddSeeds does, and says which were known.
func (d *DB) Add(seeds []string, now time.Time) (Added, error) {
	var a Added
	err := d.db.Update(func(tx kv.Tx) error {
		a = Added{} // a run again starts afresh (kv.Store.Update)
		for _, s := range seeds {
			known, err := d.hasSeedTx(tx, s)
			if err != nil {
				return err
			}
			if known {
				a.Known = append(a.Known, s)
				continue
			}
			c, isNew, err := d.addSeedTx(tx, s, SourceSeed, now, false)
			if errors.Is(err, ErrOptedOut) {
				a.OptedOut = append(a.OptedOut, s)
				continue
			}
			if err != nil {
				return err
			}
			if isNew {
				a.Created = append(a.Created, *c)
			}
		}
		return nil
	})
	if err != nil {
		return Added{}, fmt.Errorf("add seeds: %w", err)
	}
	return a, nil
}

// hasSeedTx reports whether raw is a seed of its channel already, one
// not removed (adding it again brings a removed channel back).
func (d *DB) hasSeedTx(tx kv.Tx, raw string) (bool, error) {
	seed, id, err := ParseSeed(raw)
	if err != nil {
		return false, nil // addSeedTx refuses it
	}
	var c Channel
	found, err := getJSON(channelsIn(tx), []byte(id), &c)
	if err != nil || !found || c.Removed() {
		return false, err
	}
	return slices.Contains(c.Seeds, seed), nil
}

// addSeedTx adds one seed; limited applies the inter-site limits.
func (d *DB) addSeedTx(tx kv.Tx, raw, source string, now time.Time, limited bool) (*Channel, bool, error) {
	seed, id, err := ParseSeed(raw)
	if err != nil {
		return nil, false, err
	}
	if err := optedOutErr(tx, id); err != nil {
		return nil, false, err // whoever names it: seeds, links, imports
	}
	b := channelsIn(tx)
	var c Channel
	found, err := getJSON(b, []byte(id), &c)
	if err != nil {
		return nil, false, err
	}
	if found && c.Removed() {
		if limited {
			return &c, false, nil // the user removed it: links do not bring it back
		}
		c.RemovedAt, c.Paused, c.CrawlSoon = time.Time{}, false, false
		if err := putJSON(b, []byte(id), &c); err != nil {
			return nil, false, err
		}
	}
	if found {
		for _, s := range c.Seeds {
			if s == seed {
				return &c, false, nil
			}
		}
		if limited && len(c.Seeds) >= maxSeedsPerChannel {
			return &c, false, nil
		}
		c.Seeds = append(c.Seeds, seed)
		return &c, false, putJSON(b, []byte(id), &c)
	}
	idx := tx.Bucket(bucketIndex)
	n := countIndex(idx)
	if limited && n >= d.opts.MaxChannels {
		return nil, false, ErrLimit
	}
	c = Channel{
		ID: id, Index: n, Source: source, Added: now, Seeds: []string{seed},
		MaxDepth: d.opts.MaxDepth, ChangeInterval: d.opts.Prior, Group: d.opts.Groups / 2,
	}
	if err := idx.Put(indexKey(n), []byte(id)); err != nil {
		return nil, false, err
	}
	if err := spendBudgetTx(tx, id); err != nil {
		return nil, false, err
	}
	return &c, true, putJSON(b, []byte(id), &c)
}

// Get returns the channel id.
func (d *DB) Get(id string) (Channel, error) {
	var c Channel
	err := d.db.View(func(tx kv.Tx) error {
		found, err := getJSON(tx.Bucket(bucketChannels), []byte(id), &c)
		if err == nil && !found {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return Channel{}, fmt.Errorf("get channel %s: %w", id, err)
	}
	return c, nil
}

// Count returns the number of channels.
func (d *DB) Count() (int, error) {
	n := 0
	err := d.db.View(func(tx kv.Tx) error {
		n = countIndex(tx.Bucket(bucketIndex))
		return nil
	})
	return n, err
}

// All returns every channel with Index ≥ from, in index order.
func (d *DB) All(from int) ([]Channel, error) {
	var out []Channel
	err := d.db.View(func(tx kv.Tx) error {
		out = nil
		chs := tx.Bucket(bucketChannels)
		if from > 0 {
			// The channels added since from, typically a few: by index.
			return tx.Bucket(bucketIndex).ForEachFrom(indexKey(from), func(k, id []byte) error {
				var c Channel
				found, err := getJSON(chs, id, &c)
				if err == nil && !found {
					err = fmt.Errorf("index %d names missing channel %s", binary.BigEndian.Uint64(k), id)
				}
				out = append(out, c)
				return err
			})
		}
		// All of them: one pass over the records, sorted after.
		err := chs.ForEach(func(_, v []byte) error {
			var c Channel
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			out = append(out, c)
			return nil
		})
		slices.SortFunc(out, func(a, b Channel) int { return cmp.Compare(a.Index, b.Index) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	return out, nil
}

// Update applies fn to channel id and stores the result, in one
// transaction; fn must not change ID or Index.
func (d *DB) Update(id string, fn func(*Channel) error) error {
	err := d.db.Update(func(tx kv.Tx) error {
		b := channelsIn(tx)
		var c Channel
		found, err := getJSON(b, []byte(id), &c)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		oldID, oldIndex := c.ID, c.Index
		if err := fn(&c); err != nil {
			return err
		}
		if c.ID != oldID || c.Index != oldIndex {
			return fmt.Errorf("channel ID and index cannot change")
		}
		return putJSON(b, []byte(id), &c)
	})
	if err != nil {
		return fmt.Errorf("update channel %s: %w", id, err)
	}
	return nil
}

// SetGroups stores each channel's priority group and change interval, by
// index (as recrawl.Rank returns them).
func (d *DB) SetGroups(groups []int) error {
	err := d.db.Update(func(tx kv.Tx) error {
		chs := channelsIn(tx)
		// One pass over the records (a read per channel is a round trip
		// on PostgreSQL), then the changed ones written.
		type change struct {
			c   Channel
			old []byte
		}
		var changed []change
		seen := 0
		err := chs.ForEach(func(_, v []byte) error {
			var c Channel
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			if c.Index >= len(groups) {
				return nil
			}
			seen++
			if c.Group != groups[c.Index] {
				c.Group = groups[c.Index]
				changed = append(changed, change{c, bytes.Clone(v)})
			}
			return nil
		})
		if err != nil {
			return err
		}
		if seen < len(groups) {
			return fmt.Errorf("%d groups for %d channels", len(groups), seen)
		}
		for _, ch := range changed {
			data, err := json.Marshal(&ch.c)
			if err != nil {
				return err
			}
			if err := chs.putKnown([]byte(ch.c.ID), ch.old, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set priority groups: %w", err)
	}
	return nil
}

// PutMeta stores v as JSON under name.
func (d *DB) PutMeta(name string, v any) error {
	err := d.db.Update(func(tx kv.Tx) error { return putJSON(tx.Bucket(bucketMeta), []byte(name), v) })
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	return nil
}

// GetMeta reads name into v and reports whether it was there.
func (d *DB) GetMeta(name string, v any) (bool, error) {
	var found bool
	err := d.db.View(func(tx kv.Tx) error {
		var err error
		found, err = getJSON(tx.Bucket(bucketMeta), []byte(name), v)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("read %s: %w", name, err)
	}
	return found, nil
}

// countIndex returns the number of channels: the last index plus one.
func countIndex(b kv.Bucket) int {
	k, _ := b.Last()
	if k == nil {
		return 0
	}
	return int(binary.BigEndian.Uint64(k)) + 1
}

func indexKey(i int) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(i))
	return k[:]
}

func putJSON(b kv.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(k, data)
}

func getJSON(b kv.Bucket, k []byte, v any) (bool, error) {
	data := b.Get(k)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", k, err)
	}
	return true, nil
}

// sortedDigests returns the digests of set, sorted, for stable records.
func sortedDigests(set task.DigestSet) []task.Digest {
	out := make([]task.Digest, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
