package channels

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/domain"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Limits per address and per registrable domain (docs/developer/leases.md, "Per
// address and per domain"). The host lease keeps one crawler per host;
// these keep a few per IP address and per registrable domain, swarm-wide,
// so twelve shops on one shared-hosting address, or a thousand subdomains
// of one trap, see no more than a few crawlers at once however many
// volunteers there are.
//
// The manager learns a host's addresses from its crawlers (the address a
// claim resolved, the addresses a result connected to). A volunteer can
// lie; what a lie can do is bounded:
//   - a report names addresses of the host the reporter holds a lease on,
//     and only that host's record keeps it;
//   - a host keeps one report per peer, maxAddrPeers peers, each at most
//     MaxReportAddrs addresses, forgotten after addrMemory: a liar fills
//     one slot, and honest reports in the other slots still count;
//   - an address only ever adds a host to a group, so a lie can slow a
//     host down (count it against a busy address) or leave it as it was,
//     never let more crawlers onto an address honest reports name;
//   - raising an address to the shared front-end cap takes leases on more
//     than SharedAbove registrable domains that all report it.

var bucketLimits = []byte("limits") // "ip " + address or "domain " + domain → limitRecord

// Limits are the operator's caps per address and per domain; zero values
// mean no cap.
type Limits struct {
	// PerIP caps the leases that may run at once on hosts at one IP
	// address; PerDomain on hosts of one registrable domain.
	PerIP     int
	PerDomain int
	// SharedIP is the cap of an address seen serving more than
	// SharedAbove registrable domains (a shared front end, a CDN): each
	// domain still keeps its own PerDomain cap. 0 = PerIP.
	SharedIP    int
	SharedAbove int
	// Gap is the IP wait: a lease starts on an address, or on a domain,
	// no sooner than this after the last one on it started or ended.
	Gap time.Duration
}

// Report bounds and memory of the addresses crawlers report.
const (
	// MaxReportAddrs is the most addresses one report may name.
	MaxReportAddrs = 8
	// maxAddrPeers is how many peers' reports a host keeps.
	maxAddrPeers = 4
	// addrMemory is how long a report counts.
	addrMemory = 7 * 24 * time.Hour
	// maxDomainsKept bounds the domains an address record lists: enough
	// to tell a shared front end.
	maxDomainsKept = 64
)

// hostAddr is one peer's report of a host's addresses.
type hostAddr struct {
	Peer  string    `json:"peer"`
	Addrs []string  `json:"addrs"`
	Seen  time.Time `json:"seen"`
}

// limitRecord is one address's or domain's leases.
type limitRecord struct {
	// Tasks are the tasks whose leases on the address or domain may be
	// live (pruned when they are not).
	Tasks []string `json:"tasks,omitempty"`
	// Domains are the registrable domains seen at an address, at most
	// maxDomainsKept.
	Domains []string `json:"domains,omitempty"`
	// Started is when the last lease on it was claimed, Ended when the
	// last one ended.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// ParseAddrs returns the valid IP addresses in a report, unmapped, in
// their canonical text, without duplicates, at most MaxReportAddrs.
func ParseAddrs(in []string) []string {
	var out []string
	for _, s := range in {
		a, err := netip.ParseAddr(s)
		if err != nil || len(out) >= MaxReportAddrs {
			continue
		}
		if v := a.Unmap().WithZone("").String(); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// addrsOf returns the addresses host's reports name at now.
func (hl *hostLease) addrsOf(now time.Time) []string {
	var out []string
	for _, r := range hl.Addrs {
		if now.Sub(r.Seen) > addrMemory {
			continue
		}
		for _, a := range r.Addrs {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// report records peer's report of hl's host's addresses: it replaces the
// peer's last report, or the oldest when maxAddrPeers peers reported.
func (hl *hostLease) report(peer string, addrs []string, now time.Time) {
	addrs = ParseAddrs(addrs)
	if len(addrs) == 0 || peer == "" {
		return
	}
	hl.Addrs = slices.DeleteFunc(hl.Addrs, func(r hostAddr) bool { return r.Peer == peer || now.Sub(r.Seen) > addrMemory })
	if len(hl.Addrs) >= maxAddrPeers {
		oldest := 0
		for i, r := range hl.Addrs {
			if r.Seen.Before(hl.Addrs[oldest].Seen) {
				oldest = i
			}
		}
		hl.Addrs = slices.Delete(hl.Addrs, oldest, oldest+1)
	}
	hl.Addrs = append(hl.Addrs, hostAddr{Peer: peer, Addrs: addrs, Seen: now})
}

// limitKeys are the limit records of host at its known addresses.
func limitKeys(host string, addrs []string) []string {
	keys := make([]string, 0, len(addrs)+1)
	if d := domain.Registrable(host); d != "" {
		keys = append(keys, "domain "+d)
	}
	for _, a := range addrs {
		keys = append(keys, "ip "+a)
	}
	return keys
}

// capOf is the cap of the record under key.
func (l Limits) capOf(key string, r *limitRecord) int {
	if key[:3] != "ip " {
		return l.PerDomain
	}
	if l.SharedAbove > 0 && l.SharedIP > 0 && len(r.Domains) > l.SharedAbove {
		return l.SharedIP
	}
	return l.PerIP
}

// leaseCount says which of a record's other leases count against its cap.
type leaseCount func(o *Task) bool

// granted counts the leases that may be live: delivered or claimed. A
// grant keeps to the cap so that tasks do not wait in the overlay for a
// claim that would be held.
func granted(now time.Time, skew time.Duration) leaseCount {
	return func(o *Task) bool { return o.mayBeLive(now, skew) }
}

// running counts the leases a crawler holds: the claim, where requests
// start, is where the cap is kept. Delivered but unclaimed tasks do not
// count, or three of them on one address could hold each other out.
func running(now time.Time, skew time.Duration) leaseCount {
	return func(o *Task) bool {
		return o.Holder != "" && !o.Released && now.Before(o.Expires.Add(skew))
	}
}

// limitsTx checks that task t may take a lease on its host's address and
// domain records under lt's limits, counting other leases by count, and
// joins t to them when it may. It returns why not ("" when it may) and,
// when only the IP wait stands in the way, how long until it has passed.
func limitsTx(tx kv.Tx, t *Task, addrs []string, now time.Time, lt LeaseTimes, count leaseCount, start bool) (why string, retryIn time.Duration, err error) {
	lb, tb := tx.Bucket(bucketLimits), tx.Bucket(bucketTasks)
	keys := limitKeys(t.Host, addrs)
	recs := make([]limitRecord, len(keys))
	for i, k := range keys {
		r := &recs[i]
		if _, err := getJSON(lb, []byte(k), r); err != nil {
			return "", 0, err
		}
		n := 0
		kept := r.Tasks[:0]
		for _, id := range r.Tasks {
			if id == t.ID {
				continue
			}
			var o Task
			found, err := getJSON(tb, []byte(id), &o)
			if err != nil {
				return "", 0, err
			}
			if !found || o.State != TaskOpen || o.Host == "" || !now.Before(o.liveUntil(lt.Skew)) {
				continue // its lease cannot be live: forgotten
			}
			kept = append(kept, id)
			if count(&o) {
				n++
			}
		}
		r.Tasks = kept
		if c := lt.Limits.capOf(k, r); c > 0 && n >= c {
			return fmt.Sprintf("%d leases run on %s (cap %d)", n, k, c), 0, nil
		}
		if g := lt.Limits.Gap; start && g > 0 {
			if last := later(r.Started, r.Ended); now.Before(last.Add(g)) {
				return fmt.Sprintf("a lease on %s started or ended %v ago, under the IP wait %v", k, now.Sub(last).Round(time.Millisecond), g), last.Add(g).Sub(now), nil
			}
		}
	}
	for i, k := range keys {
		r := &recs[i]
		r.Tasks = append(r.Tasks, t.ID)
		if start {
			r.Started = now
		}
		if err := putJSON(lb, []byte(k), r); err != nil {
			return "", 0, err
		}
	}
	return "", 0, nil
}

// active reports whether any cap or wait is set.
func (l Limits) active() bool { return l.PerIP > 0 || l.PerDomain > 0 || l.Gap > 0 }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// reportTx records peer's report of host's addresses, and host's domain
// at each address, and returns the host's record as updated.
func reportTx(tx kv.Tx, host, peer string, addrs []string, now time.Time) (hostLease, error) {
	hb, lb := tx.Bucket(bucketHosts), tx.Bucket(bucketLimits)
	var hl hostLease
	if _, err := getJSON(hb, []byte(host), &hl); err != nil {
		return hl, err
	}
	addrs = ParseAddrs(addrs)
	if len(addrs) == 0 {
		return hl, nil
	}
	hl.report(peer, addrs, now)
	if err := putJSON(hb, []byte(host), &hl); err != nil {
		return hl, err
	}
	d := domain.Registrable(host)
	for _, a := range addrs {
		var r limitRecord
		k := []byte("ip " + a)
		if _, err := getJSON(lb, k, &r); err != nil {
			return hl, err
		}
		if d == "" || slices.Contains(r.Domains, d) || len(r.Domains) >= maxDomainsKept {
			continue
		}
		r.Domains = append(r.Domains, d)
		if err := putJSON(lb, k, &r); err != nil {
			return hl, err
		}
	}
	return hl, nil
}

// limitsEndedTx records that a lease on host, at hl's addresses, ended
// at now: the IP wait runs from it.
func limitsEndedTx(tx kv.Tx, host string, hl *hostLease, now time.Time) error {
	lb := tx.Bucket(bucketLimits)
	for _, k := range limitKeys(host, hl.addrsOf(now)) {
		var r limitRecord
		found, err := getJSON(lb, []byte(k), &r)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		r.Ended = now
		if err := putJSON(lb, []byte(k), &r); err != nil {
			return err
		}
	}
	return nil
}

// report records peer's report of the addresses of the host of task id,
// when the task is open under the lease of epoch.
func (d *DB) report(id string, epoch uint64, peer string, addrs []string, now time.Time) error {
	err := d.db.Update(func(tx kv.Tx) error {
		var t Task
		found, err := getJSON(tx.Bucket(bucketTasks), []byte(id), &t)
		if err != nil || !found || t.State != TaskOpen || t.Epoch != epoch || t.Host == "" {
			return err
		}
		_, err = reportTx(tx, t.Host, peer, addrs, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("record the addresses of task %s's host: %w", id, err)
	}
	return nil
}
