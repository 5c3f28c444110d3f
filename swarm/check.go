package swarm

import (
	"fmt"
	"math"
	"time"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Ledger is one stopped client's credits ledger, summed.
type Ledger struct {
	// Credits is the ledger's total (confirmed plus pending); Receipts
	// the sum of the credits of the receipts it holds, by peer.
	Credits  float64
	Receipts map[string]float64
	Count    int
	// Tasks are the IDs of the tasks it holds receipts of.
	Tasks map[string]bool
}

// ReadLedger opens the stopped client's ledger and sums it.
func (c *Client) ReadLedger() (Ledger, error) {
	l, err := ledger.Open(homeDirs(c.Home).LedgerFile())
	if err != nil {
		return Ledger{}, fmt.Errorf("read %s's ledger: %w", c.Name, err)
	}
	defer l.Close()
	tot, err := l.Totals(time.Now())
	if err != nil {
		return Ledger{}, err
	}
	es, err := l.Entries(0)
	if err != nil {
		return Ledger{}, err
	}
	out := Ledger{Credits: tot.Confirmed + tot.Pending, Receipts: map[string]float64{}, Count: len(es), Tasks: map[string]bool{}}
	for _, e := range es {
		if e.State() != task.CreditRevoked {
			out.Receipts[e.Receipt.Peer] += e.Receipt.Credits
		}
		out.Tasks[e.Receipt.TaskID] = true
	}
	return out, nil
}

// Unfinished returns the IDs of the stopped client's tasks that are done
// but whose upload, or the keeping of whose receipt, did not finish: a
// crash (or a stop) in the middle of it. Their receipts reach the ledger
// when the client next starts.
func (c *Client) Unfinished() ([]string, error) {
	q, err := queue.Open(homeDirs(c.Home).QueueFile(), queue.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read %s's queue: %w", c.Name, err)
	}
	defer q.Close()
	rs, err := q.Uploads()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids, nil
}

// ReadReceipts returns, by task ID, the receipts the stopped manager's
// storage module issued for the tasks ids.
func (m *Manager) ReadReceipts(ids []string) (map[string]task.Receipt, error) {
	p, err := profile.Read(m.Profile)
	if err != nil {
		return nil, err
	}
	key, err := p.Key()
	if err != nil {
		return nil, err
	}
	return storage.ReadReceipts(m.Dir(), key, ids)
}

// ReadContributors reads what the stopped manager's storage credited
// each contributor. Read after the stop, it counts every upload storage
// began: a status taken while it ran may miss one still being stored.
func (m *Manager) ReadContributors() ([]storage.Contributor, error) {
	a, err := storage.OpenAudit(m.Dir())
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return a.Contributors()
}

// TilingError says why zones do not tile the CAN space exactly: the boxes
// must not overlap and their volumes must add up to the volume of the box
// they span together. Nil means they tile it.
func TilingError(zones []localapi.Zone) error {
	if len(zones) == 0 {
		return fmt.Errorf("no zones")
	}
	d := len(zones[0].Lo)
	lo, hi := make([]float64, d), make([]float64, d)
	for k := range d {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	var sum float64
	for i, z := range zones {
		if len(z.Lo) != d || len(z.Hi) != d {
			return fmt.Errorf("zone %d has %d/%d dimensions, want %d", i, len(z.Lo), len(z.Hi), d)
		}
		v := 1.0
		for k := range d {
			if !(z.Hi[k] > z.Lo[k]) {
				return fmt.Errorf("zone %d is empty in dimension %d", i, k)
			}
			v *= z.Hi[k] - z.Lo[k]
			lo[k], hi[k] = min(lo[k], z.Lo[k]), max(hi[k], z.Hi[k])
		}
		sum += v
		for j := range i {
			if ov := overlap(z, zones[j]); ov > 1e-12 {
				return fmt.Errorf("zones %d and %d overlap (volume %g)", j, i, ov)
			}
		}
	}
	space := 1.0
	for k := range d {
		space *= hi[k] - lo[k]
	}
	if math.Abs(sum-space) > 1e-9*space {
		return fmt.Errorf("zones cover %g of a space of %g: a gap", sum, space)
	}
	return nil
}

// UnlistedError says which client does not list a client whose zones
// abut its own among its neighbours, or nil when every abutting pair lists
// each other. The churn tests wait for it before they churn: before the
// manager certified zones, a peer that died or left with its handover
// refused could be known to none of the peers around its zones, and
// nobody took them over (docs/developer/overlay-journal.md). The manager
// now hands an expired member's zones to their heirs itself.
func UnlistedError(sts []*localapi.Overlay, names []string) error {
	for i, a := range sts {
		listed := map[string]bool{}
		for _, nb := range a.Neighbours {
			listed[nb.Peer] = true
		}
		for j, b := range sts {
			if i == j || listed[b.Peer] || !abut(a.Zones, b.Zones) {
				continue
			}
			return fmt.Errorf("%s does not list %s, whose zones abut its own", names[i], names[j])
		}
	}
	return nil
}

// abut reports whether a zone of as abuts a zone of bs.
func abut(as, bs []localapi.Zone) bool {
	for _, a := range as {
		for _, b := range bs {
			if can.Abuts(can.Zone{Lo: a.Lo, Hi: a.Hi}, can.Zone{Lo: b.Lo, Hi: b.Hi}) {
				return true
			}
		}
	}
	return false
}

func overlap(a, b localapi.Zone) float64 {
	v := 1.0
	for k := range a.Lo {
		w := min(a.Hi[k], b.Hi[k]) - max(a.Lo[k], b.Lo[k])
		if w <= 0 {
			return 0
		}
		v *= w
	}
	return v
}
