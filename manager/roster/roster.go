// Package roster lets several managers run one network on one PostgreSQL
// database (manager.Options.DB). They share the operator's key, so
// volunteers see one manager at several addresses, and the database,
// whose transactions keep them from issuing a round twice or granting two
// live leases on a host (package channels), and whose key registry makes a
// key withdrawn at one manager withdrawn at all (package botkeys). On top
// of that each manager's Roster, every tick (Sync):
//
//   - writes its heartbeat to the database's roster, and reads the
//     others': the managers whose heartbeat is fresh split the channels
//     between them by a hash of the channel's ID (Mine), and each issues
//     and sends the rounds of its share only. A manager that stops takes
//     its beat off the roster (Leave); one that stops beating (killed) is
//     out of the split after ManagerFor. The others take its share;
//   - writes the overlay members that renewed with it, and reads those
//     that renewed with the others, so every manager knows the whole
//     overlay;
//   - has the network profile written again, with every live manager's
//     addresses (Others), when the live managers change.
package roster

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/members"
)

// Roster key prefixes.
const (
	rosterManager = "manager/"
	rosterMember  = "member/"
)

// rosterKeep is how long a roster entry is kept after its last beat.
const rosterKeep = time.Hour

// managerBeat is a manager's roster entry.
type managerBeat struct {
	Seen  time.Time `json:"seen"`
	Addrs []string  `json:"addrs"`
}

// Config is what a Roster reads and tells.
type Config struct {
	DB *channels.DB
	// Members are the overlay members this manager knows: those that
	// renewed with it are written, the others' merged in.
	Members *members.Registry
	// Self is the manager's peer ID, Addrs its addresses with it: every
	// manager of a network shares one key, so each address ends in Self.
	Self  string
	Addrs func() []string
	// Tick is the managers' scheduling period.
	Tick time.Duration
	// Changed is called when the live managers change, to write the
	// network profile again.
	Changed func() error
	Logger  *slog.Logger
}

// Roster is a manager's part in a database it shares with others.
type Roster struct {
	cfg Config
	id  string // this run's name in the roster

	mu     sync.Mutex // guards the fields below
	rank   int        // this manager's place among the live ones
	n      int        // live managers, this one included; 0 before sync
	pushed time.Time  // members written up to
	addrs  []string   // every live manager's addresses, last written
}

// New returns this run's Roster, under a fresh random name.
func New(cfg Config) *Roster {
	var b [6]byte
	rand.Read(b[:])
	return &Roster{cfg: cfg, id: hex.EncodeToString(b[:])}
}

// ManagerFor is how long a heartbeat keeps a manager in the split.
func (s *Roster) ManagerFor() time.Duration { return max(3*s.cfg.Tick, 15*time.Second) }

// Mine says whether the channel is in this manager's share.
func (s *Roster) Mine(channel string) bool {
	s.mu.Lock()
	rank, n := s.rank, s.n
	s.mu.Unlock()
	if n <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(channel))
	return int(h.Sum32()%uint32(n)) == rank
}

// Sync writes this manager's beat and members and reads the others'.
func (s *Roster) Sync(now time.Time) error {
	s.mu.Lock()
	since := s.pushed
	s.mu.Unlock()
	put := map[string]any{rosterManager + s.id: managerBeat{Seen: now, Addrs: s.cfg.Addrs()}}
	for _, mb := range s.cfg.Members.Local(since) {
		put[rosterMember+mb.ID.String()] = mb
	}
	// Read first, so stale entries go in the same write.
	var live []string
	addrs := map[string]bool{}
	self := "/p2p/" + s.cfg.Self
	err := s.cfg.DB.Roster(rosterManager, func(k string, v []byte) error {
		var b managerBeat
		if err := json.Unmarshal(v, &b); err != nil {
			return fmt.Errorf("roster entry %s: %w", k, err)
		}
		id := strings.TrimPrefix(k, rosterManager)
		switch {
		case id == s.id:
		case now.Sub(b.Seen) > rosterKeep:
			put[k] = nil
		case now.Sub(b.Seen) <= s.ManagerFor():
			live = append(live, id)
			for _, a := range b.Addrs {
				if !strings.HasSuffix(a, self) {
					return fmt.Errorf("manager %s shares the database under another key (%s): managers of one network need copies of one key file", id, a)
				}
				addrs[a] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var remote []members.Member
	err = s.cfg.DB.Roster(rosterMember, func(k string, v []byte) error {
		var mb members.Member
		if err := json.Unmarshal(v, &mb); err != nil {
			return fmt.Errorf("roster entry %s: %w", k, err)
		}
		if now.Sub(mb.Seen) > rosterKeep {
			put[k] = nil
		} else if _, ours := put[k]; !ours {
			remote = append(remote, mb)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.cfg.DB.PutRoster(put); err != nil {
		return err
	}
	s.cfg.Members.Merge(remote)
	live = append(live, s.id)
	slices.Sort(live)
	others := slices.Sorted(maps.Keys(addrs))
	s.mu.Lock()
	changed := s.n != len(live) || !slices.Equal(s.addrs, others)
	s.rank, s.n, s.pushed, s.addrs = slices.Index(live, s.id), len(live), now, others
	s.mu.Unlock()
	if changed {
		s.cfg.Logger.Info("Managers sharing the database", "live", len(live), "rank", slices.Index(live, s.id))
		if err := s.cfg.Changed(); err != nil {
			return err
		}
	}
	return nil
}

// Leave takes this manager off the roster as it stops, so the others
// take its share at their next tick rather than after ManagerFor, and a
// restarted manager (a new run, a new name) is not counted beside its
// stopped self. A manager killed without stopping stays until ManagerFor.
func (s *Roster) Leave() error {
	return s.cfg.DB.PutRoster(map[string]any{rosterManager + s.id: nil})
}

// Others returns the other live managers' addresses.
func (s *Roster) Others() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.addrs)
}

// Live returns how many managers share the split, this one included; 0
// before the first Sync.
func (s *Roster) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
