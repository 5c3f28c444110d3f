package channels

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/domain"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Opt-outs. A web site that wants no visit from the network is opted out
// by the operator or, proving it controls the host, by its owner (the
// manager's site server). The list lives here, beside the channels and
// the host leases, so every manager sharing the database honours it: an
// opted-out host gets no channel (seeds, links and IndexNow alike), no
// task is granted, claimed or renewed on it, and its channels are
// removed (not deleted: channels keep their dense index, and a removed
// channel keeps its history should the opt-out be lifted).
//
// An opt-out names a host (www.example.com: that host on any port) or a
// registrable domain (example.com: it and every host under it). A name
// that is a registrable domain always opts out the whole domain.

var bucketOptOuts = []byte("optouts") // host name or registrable domain → OptOut

// ErrOptedOut: the site asked not to be crawled.
var ErrOptedOut = errors.New("the site opted out of this crawler")

// ReasonOptedOut is the Reason of a task ended by an opt-out.
const ReasonOptedOut = "opted out"

// OptOutByOperator is OptOut.By for the operator's own opt-outs.
const OptOutByOperator = "operator"

// maxOptOutBy bounds OptOut.By.
const maxOptOutBy = 512

// OptOut is one entry of the opt-out list.
type OptOut struct {
	// Name is a host name or a registrable domain: lower case, punycode,
	// no port, no trailing dot.
	Name string `json:"name"`
	// Domain is set when Name is a registrable domain: every host under
	// it is opted out too.
	Domain bool `json:"domain,omitempty"`
	// At is when it was added; By who asked: OptOutByOperator, or the
	// site's owner and how it proved it.
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// Covers reports whether o opts out host (host or host:port).
func (o OptOut) Covers(host string) bool {
	name := domain.Hostname(host)
	return name == o.Name || (o.Domain && strings.HasSuffix(name, "."+o.Name))
}

// ParseOptOut reads what a person names to opt out (a host, a domain or
// a URL on it: "Example.COM", "https://www.example.com/about") and
// returns the name the list keeps and whether it is a registrable
// domain. A public suffix (co.uk), a single label (localhost) or
// anything but an http(s) host is refused, wrapping ErrBadSeed.
func ParseOptOut(s string) (name string, isDomain bool, err error) {
	raw := strings.TrimSpace(s)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	_, id, err := ParseSeed(raw)
	if err != nil {
		return "", false, fmt.Errorf("opt out %q: %w", s, err)
	}
	name = domain.Hostname(id)
	if _, err := netip.ParseAddr(name); err == nil {
		return name, false, nil
	}
	if domain.IsRegistrable(name) {
		return name, true, nil
	}
	if domain.Registrable(name) == name {
		// Under no registrable domain: a public suffix or a single label.
		return "", false, fmt.Errorf("opt out %q: %w: %s is not a web site's host or domain", s, ErrBadSeed, name)
	}
	return name, false, nil
}

// optedOutTx returns the opt-out that covers host, or nil.
func optedOutTx(tx kv.Tx, host string) (*OptOut, error) {
	name := domain.Hostname(host)
	if name == "" {
		return nil, nil
	}
	b := tx.Bucket(bucketOptOuts)
	var o OptOut
	found, err := getJSON(b, []byte(name), &o)
	if err != nil || found {
		return &o, err
	}
	if reg := domain.Registrable(name); reg != name {
		found, err := getJSON(b, []byte(reg), &o)
		if err != nil || (found && o.Domain) {
			return &o, err
		}
	}
	return nil, nil
}

// optedOutErr is ErrOptedOut for host when o covers it, else nil.
func optedOutErr(tx kv.Tx, host string) error {
	o, err := optedOutTx(tx, host)
	switch {
	case err != nil:
		return err
	case o == nil:
		return nil
	}
	return fmt.Errorf("%w: %s (%s, %s)", ErrOptedOut, host, o.Name, o.At.UTC().Format(time.DateOnly))
}

// leaseOptedOut is optedOutErr for a claim or renewal: an opt-out ends
// the lease (ErrLeaseOver), the crawler stops or drops the task.
func leaseOptedOut(tx kv.Tx, host string) error {
	err := optedOutErr(tx, host)
	if errors.Is(err, ErrOptedOut) {
		return fmt.Errorf("%w: %w", ErrLeaseOver, err)
	}
	return err
}

// OptedOut returns the opt-out that covers host, if any.
func (d *DB) OptedOut(host string) (OptOut, bool, error) {
	var o *OptOut
	err := d.db.View(func(tx kv.Tx) (err error) {
		o, err = optedOutTx(tx, host)
		return err
	})
	if err != nil {
		return OptOut{}, false, fmt.Errorf("read the opt-out of %s: %w", host, err)
	}
	if o == nil {
		return OptOut{}, false, nil
	}
	return *o, true, nil
}

// OptedOutResult is what AddOptOut did.
type OptedOutResult struct {
	OptOut OptOut
	// Known is set when the name was on the list already (its record is
	// left as it was).
	Known bool
	// Channels are the channels removed.
	Channels []string
	// Ended are the open tasks ended on its hosts; those with a Holder
	// that did not release them may be crawling now.
	Ended []Task
}

// AddOptOut puts name (ParseOptOut's) on the opt-out list, asked by by
// at now, and in the same transaction removes the channels it covers and
// ends their open tasks (ReasonOptedOut) with their host leases: from
// then on no claim or renewal on those hosts is granted, and a crawler
// holding one stops at its next renewal, or sooner when the manager
// tells it (Ended).
func (d *DB) AddOptOut(name string, by string, now time.Time) (OptedOutResult, error) {
	name, isDomain, err := ParseOptOut(name)
	if err != nil {
		return OptedOutResult{}, err
	}
	if len(by) > maxOptOutBy {
		by = strings.ToValidUTF8(by[:maxOptOutBy], "")
	}
	var res OptedOutResult
	err = d.db.Update(func(tx kv.Tx) error {
		res = OptedOutResult{OptOut: OptOut{Name: name, Domain: isDomain, At: now, By: by}} // a run again starts afresh
		b := tx.Bucket(bucketOptOuts)
		var old OptOut
		found, err := getJSON(b, []byte(name), &old)
		if err != nil {
			return err
		}
		if found {
			res.OptOut, res.Known = old, true
		} else if err := putJSON(b, []byte(name), &res.OptOut); err != nil {
			return err
		}
		o := res.OptOut
		chs := channelsIn(tx)
		var remove []Channel
		if err := chs.ForEach(func(k, v []byte) error {
			if !o.Covers(string(k)) {
				return nil
			}
			var c Channel
			if err := json.Unmarshal(v, &c); err != nil {
				return fmt.Errorf("decode channel %s: %w", k, err)
			}
			if !c.Removed() {
				remove = append(remove, c)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, c := range remove {
			c.RemovedAt, c.Paused, c.CrawlSoon = now, false, false
			if err := putJSON(chs, []byte(c.ID), &c); err != nil {
				return err
			}
			res.Channels = append(res.Channels, c.ID)
		}
		var open []Task
		if err := forEachTask(tx, func(t Task) error {
			if t.State == TaskOpen && o.Covers(t.Host) {
				open = append(open, t)
			}
			return nil
		}); err != nil {
			return err
		}
		tb := tx.Bucket(bucketTasks)
		for _, t := range open {
			if _, err := endTx(chs, tb, t, TaskCancelled, ReasonOptedOut, now); err != nil {
				return err
			}
			if err := endLeaseTx(tx, &t, now); err != nil {
				return err
			}
			t.Envelope, t.Spec, t.Listed = nil, nil, nil
			res.Ended = append(res.Ended, t)
		}
		return nil
	})
	if err != nil {
		return OptedOutResult{}, fmt.Errorf("opt out %s: %w", name, err)
	}
	return res, nil
}

// RemoveOptOut takes name (ParseOptOut's) off the opt-out list and
// reports whether it was on it. The channels the opt-out removed stay
// removed: a seed on their host brings them back, links do not.
func (d *DB) RemoveOptOut(name string) (bool, error) {
	name, _, err := ParseOptOut(name)
	if err != nil {
		return false, err
	}
	var found bool
	err = d.db.Update(func(tx kv.Tx) error {
		b := tx.Bucket(bucketOptOuts)
		found = b.Get([]byte(name)) != nil
		return b.Delete([]byte(name))
	})
	if err != nil {
		return false, fmt.Errorf("lift the opt-out of %s: %w", name, err)
	}
	return found, nil
}

// OptOuts returns the opt-out list in name order.
func (d *DB) OptOuts() ([]OptOut, error) {
	var out []OptOut
	err := d.db.View(func(tx kv.Tx) error {
		out = nil
		return tx.Bucket(bucketOptOuts).ForEach(func(k, v []byte) error {
			var o OptOut
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("decode opt-out %s: %w", k, err)
			}
			out = append(out, o)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list opt-outs: %w", err)
	}
	return out, nil
}
