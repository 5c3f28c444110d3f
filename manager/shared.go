package manager

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/members"
)

// Several managers can run one network on one PostgreSQL database
// (Options.DB). They share the operator's key, so volunteers see one
// manager at several addresses, and the database, whose transactions keep
// them from issuing a round twice or granting two live leases on a host
// (package channels), and whose key registry makes a key withdrawn at one
// manager withdrawn at all (package botkeys). On top of that each manager,
// every tick:
//
//   - writes its heartbeat to the database's roster, and reads the
//     others': the managers whose heartbeat is fresh split the channels
//     between them by a hash of the channel's ID, and each issues and
//     sends the rounds of its share only. A manager that stops takes
//     its beat off the roster; one that stops beating (killed) is out of
//     the split after managerFor. The others take its share;
//   - writes the overlay members that renewed with it, and reads those
//     that renewed with the others, so any manager can answer a
//     newcomer with entry peers and none names a first peer while the
//     overlay runs;
//   - writes its profile with every live manager's addresses.

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

// shared is a manager's part in a database it shares with others.
type shared struct {
	m  *Manager
	id string // this run's name in the roster

	mu     sync.Mutex // guards the fields below
	rank   int        // this manager's place among the live ones
	n      int        // live managers, this one included; 0 before sync
	pushed time.Time  // members written up to
	addrs  []string   // every live manager's addresses, last written
}

func newShared(m *Manager) *shared {
	var b [6]byte
	rand.Read(b[:])
	return &shared{m: m, id: hex.EncodeToString(b[:])}
}

// mine says whether channel is in this manager's share: always, unless
// it shares its database with other managers.
func (m *Manager) mine(channel string) bool { return m.shared == nil || m.shared.mine(channel) }

// managerFor is how long a heartbeat keeps a manager in the split.
func (s *shared) managerFor() time.Duration { return max(3*s.m.opts.Tick, 15*time.Second) }

// mine says whether the channel is in this manager's share.
func (s *shared) mine(channel string) bool {
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

// sync writes this manager's beat and members and reads the others'.
func (s *shared) sync(now time.Time) error {
	s.mu.Lock()
	since := s.pushed
	s.mu.Unlock()
	put := map[string]any{rosterManager + s.id: managerBeat{Seen: now, Addrs: s.m.host.P2PAddrs()}}
	for _, mb := range s.m.members.Local(since) {
		put[rosterMember+mb.ID.String()] = mb
	}
	// Read first, so stale entries go in the same write.
	var live []string
	addrs := map[string]bool{}
	self := "/p2p/" + s.m.host.ID().String()
	err := s.m.db.Roster(rosterManager, func(k string, v []byte) error {
		var b managerBeat
		if err := json.Unmarshal(v, &b); err != nil {
			return fmt.Errorf("roster entry %s: %w", k, err)
		}
		id := strings.TrimPrefix(k, rosterManager)
		switch {
		case id == s.id:
		case now.Sub(b.Seen) > rosterKeep:
			put[k] = nil
		case now.Sub(b.Seen) <= s.managerFor():
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
	err = s.m.db.Roster(rosterMember, func(k string, v []byte) error {
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
	if err := s.m.db.PutRoster(put); err != nil {
		return err
	}
	s.m.members.Merge(remote)
	live = append(live, s.id)
	slices.Sort(live)
	others := slices.Sorted(maps.Keys(addrs))
	s.mu.Lock()
	changed := s.n != len(live) || !slices.Equal(s.addrs, others)
	s.rank, s.n, s.pushed, s.addrs = slices.Index(live, s.id), len(live), now, others
	s.mu.Unlock()
	if changed {
		s.m.log.Info("Managers sharing the database", "live", len(live), "rank", slices.Index(live, s.id))
		if _, err := s.m.WriteProfile(); err != nil {
			return err
		}
	}
	return nil
}

// leave takes this manager off the roster as it stops, so the others
// take its share at their next tick rather than after managerFor, and a
// restarted manager (a new run, a new name) is not counted beside its
// stopped self. A manager killed without stopping stays until managerFor.
func (s *shared) leave() error {
	return s.m.db.PutRoster(map[string]any{rosterManager + s.id: nil})
}

// others returns the other live managers' addresses.
func (s *shared) others() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.addrs)
}
