package swarm

import (
	"fmt"
	"math"
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
)

// Validation is what the operator's spot-checks did in a run, counted from
// the stopped manager's storage index and the cheaters' own logs of what
// they forged.
type Validation struct {
	// Cheaters is how many clients forged every result, by mode.
	Cheaters   int            `json:"cheaters"`
	CheatModes map[string]int `json:"cheat_modes,omitempty"`
	// Results stored, by what validation did with them: checked (then
	// passed, failed or still pending at the end) or let through
	// unchecked by their peer's record.
	ResultsChecked   int `json:"results_checked"`
	ResultsUnchecked int `json:"results_unchecked"`
	ResultsPassed    int `json:"results_passed"`
	ResultsFailed    int `json:"results_failed"`
	ResultsPending   int `json:"results_pending"`
	// UploadsRefused counts uploads storage refused outright (a peer not
	// holding the task's lease among them).
	UploadsRefused int `json:"uploads_refused"`
	// ForgedPages counts the pages the cheaters uploaded forged;
	// ForgedPagesAccepted those the operator's index serves from a
	// result that passed or went unchecked, ForgedPagesPending those it
	// serves from a result still waiting for its check at the end.
	ForgedPages         int `json:"forged_pages"`
	ForgedPagesAccepted int `json:"forged_pages_accepted"`
	ForgedPagesPending  int `json:"forged_pages_pending"`
	// Credit of the cheaters' peers: confirmed, still pending, revoked.
	CreditConfirmedToCheaters float64 `json:"credit_confirmed_to_cheaters"`
	CreditPendingToCheaters   float64 `json:"credit_pending_to_cheaters"`
	CreditRevokedFromCheaters float64 `json:"credit_revoked_from_cheaters"`
	// HonestResultsRejected counts failed results of honest peers;
	// HonestCreditRevoked the honest peers' revoked credit (a contradicted
	// check's included).
	HonestResultsRejected int     `json:"honest_results_rejected"`
	HonestCreditRevoked   float64 `json:"honest_credit_revoked"`
	// ValidationFetches are the pages checkers re-fetched; ValidationShare
	// is their share of all pages the web served; RecordedShare their
	// share among the results of peers that already had a record (what
	// checking costs once records exist).
	ValidationFetches int64   `json:"validation_fetches"`
	ValidationShare   float64 `json:"validation_share"`
	RecordedShare     float64 `json:"recorded_share"`
	// Sybil is what the sybil pairs tried and got, Squat what the
	// squatters did; nil without such cheaters.
	Sybil *SybilSummary `json:"sybil,omitempty"`
	Squat *SquatSummary `json:"squat,omitempty"`
}

// SybilSummary is what the sybil pairs (adversary.Sybil) got: each identity
// forges its results, and confirms its twin's forged pages when drawn to
// spot-check them.
type SybilSummary struct {
	Pairs int `json:"pairs"`
	// ChecksSent counts the spot-checks a sybil answered with its twin's
	// forged pages: the attack as made, 0 when no twin was drawn.
	ChecksSent int `json:"checks_of_twin_sent"`
	// Of the twin's results those checks were of: confirmed (credit
	// granted, the attack's success: 0 wanted), revoked, and neither
	// (still pending, or untold) at the end.
	Confirmed int `json:"twin_results_confirmed"`
	Revoked   int `json:"twin_results_revoked"`
	Undecided int `json:"twin_results_undecided"`
}

// SquatSummary is what the squatters (adversary.Squat) did: they claim the
// lease of every task they are sent and renew it showing no progress.
type SquatSummary struct {
	Squatters int `json:"squatters"`
	// Leases counts the leases they held; EndedByManager those the
	// manager ended by refusing a renewal, HeldSeconds how long each of
	// these was held, from its claim (shortest, mean, longest); the rest
	// ended with the run or were still held.
	Leases         int        `json:"leases_squatted"`
	EndedByManager int        `json:"leases_ended_by_manager"`
	HeldSeconds    [3]float64 `json:"held_seconds_min_mean_max"`
	// Hosts counts the hosts whose leases they held, HostsUncrawled
	// those of them with no result stored at the end (0 wanted: the
	// manager sends a squatted host's next task to another member).
	Hosts          int `json:"hosts_squatted"`
	HostsUncrawled int `json:"hosts_left_uncrawled"`
}

// Validation reads what validation did from the stopped manager and the
// clients' homes; pagesServed is the web's count of pages served, rep
// the stopped manager's channels.
func (s *Swarm) Validation(pagesServed int64, rep ChannelReport) (Validation, error) {
	var v Validation
	cheaters := map[string]bool{}
	var (
		forged       []adversary.Forged
		confirmed    []adversary.Confirmation
		squats       []adversary.Squatted
		pairs        = map[int]bool{}
		hasSquatters bool
	)
	for _, c := range s.Clients {
		if c.Cheat == "" {
			continue
		}
		v.Cheaters++
		if v.CheatModes == nil {
			v.CheatModes = map[string]int{}
		}
		v.CheatModes[c.Cheat]++
		switch c.Cheat {
		case adversary.Sybil:
			pairs[c.CheatPair] = true
			cs, err := adversary.ReadConfirmations(homeDirs(c.Home).Data)
			if err != nil {
				return v, fmt.Errorf("%s's log: %w", c.Name, err)
			}
			confirmed = append(confirmed, cs...)
		case adversary.Squat:
			hasSquatters = true
			sq, err := adversary.ReadSquats(homeDirs(c.Home).Data)
			if err != nil {
				return v, fmt.Errorf("%s's log: %w", c.Name, err)
			}
			squats = append(squats, sq...)
		}
		key, err := host.LoadKey(homeDirs(c.Home).PeerKeyFile())
		if err != nil {
			return v, fmt.Errorf("%s's identity: %w", c.Name, err)
		}
		id, err := peer.IDFromPrivateKey(key)
		if err != nil {
			return v, err
		}
		cheaters[id.String()] = true
		fs, err := adversary.ReadLog(homeDirs(c.Home).Data)
		if err != nil {
			return v, fmt.Errorf("%s's log: %w", c.Name, err)
		}
		forged = append(forged, fs...)
	}
	a, err := storage.OpenAudit(s.Manager.Dir())
	if err != nil {
		return v, err
	}
	defer a.Close()
	tot, err := a.Totals()
	if err != nil {
		return v, err
	}
	v.ResultsChecked, v.ResultsUnchecked, v.ResultsPassed, v.ResultsFailed = tot.Checked, tot.Unchecked, tot.Passed, tot.Failed
	v.ResultsPending = tot.Checked - tot.Passed - tot.Failed
	v.UploadsRefused = tot.Refused
	v.ValidationFetches = tot.CheckFetches
	if pagesServed > 0 {
		v.ValidationShare = math.Round(float64(tot.CheckFetches)/float64(pagesServed)*1000) / 1000
	}
	if n := tot.RecordedPages + tot.RecordedCheckFetches; n > 0 {
		v.RecordedShare = math.Round(float64(tot.RecordedCheckFetches)/float64(n)*1000) / 1000
	}
	v.ForgedPages = len(forged)
	for _, f := range forged {
		e, found, err := a.Lookup(f.URL)
		if err != nil {
			return v, err
		}
		if !found || e.Task != f.Task {
			continue
		}
		pending, err := a.Pending(f.Task)
		if err != nil {
			return v, err
		}
		if pending {
			v.ForgedPagesPending++
		} else {
			v.ForgedPagesAccepted++
		}
	}
	cs, err := a.Contributors()
	if err != nil {
		return v, err
	}
	for _, c := range cs {
		if cheaters[c.Peer] {
			v.CreditConfirmedToCheaters += c.Credits - c.Pending
			v.CreditPendingToCheaters += c.Pending
			v.CreditRevokedFromCheaters += c.Revoked
		} else {
			v.HonestCreditRevoked += c.Revoked
		}
	}
	vs, err := a.Verdicts()
	if err != nil {
		return v, err
	}
	for _, vd := range vs {
		if vd.Verdict == storage.VerdictInvalid && !cheaters[vd.Peer] {
			v.HonestResultsRejected++
		}
	}
	if len(pairs) > 0 {
		v.Sybil = sybilSummary(len(pairs), confirmed, vs)
	}
	if hasSquatters {
		v.Squat = squatSummary(v.CheatModes[adversary.Squat], squats, rep)
	}
	round := func(f *float64) { *f = math.Round(*f*100) / 100 }
	round(&v.CreditConfirmedToCheaters)
	round(&v.CreditPendingToCheaters)
	round(&v.CreditRevokedFromCheaters)
	round(&v.HonestCreditRevoked)
	return v, nil
}

// sybilSummary counts the sybils' confirmations of their twins' results
// and the verdicts on those results.
func sybilSummary(pairs int, cs []adversary.Confirmation, vs []storage.Verdict) *SybilSummary {
	sum := &SybilSummary{Pairs: pairs}
	checks, of := map[string]bool{}, map[string]bool{}
	for _, c := range cs {
		checks[c.Check], of[c.Of] = true, true
	}
	sum.ChecksSent = len(checks)
	verdict := map[string]storage.Verdict{}
	for _, vd := range vs {
		verdict[vd.Task] = vd
	}
	for id := range of {
		switch vd, ok := verdict[id]; {
		case ok && vd.Verdict == storage.VerdictInvalid:
			sum.Revoked++
		case ok && vd.Verdict == storage.VerdictValid && !vd.Untold:
			sum.Confirmed++
		default:
			sum.Undecided++
		}
	}
	return sum
}

// squatSummary counts the leases squatters held, how long the manager
// let them, and the hosts left without a result.
func squatSummary(squatters int, sq []adversary.Squatted, rep ChannelReport) *SquatSummary {
	sum := &SquatSummary{Squatters: squatters, Leases: len(sq)}
	crawled := map[string]bool{}
	for _, c := range rep.Channels {
		crawled[c.ID] = c.Updates > 0
	}
	hosts := map[string]bool{}
	var held []float64
	for _, s := range sq {
		hosts[s.Host] = true
		if s.ByManager {
			sum.EndedByManager++
			held = append(held, s.Held().Seconds())
		}
	}
	if len(held) > 0 {
		slices.Sort(held)
		var total float64
		for _, h := range held {
			total += h
		}
		sum.HeldSeconds = [3]float64{math.Round(held[0]), math.Round(total / float64(len(held))), math.Round(held[len(held)-1])}
	}
	sum.Hosts = len(hosts)
	for h := range hosts {
		if !crawled[h] {
			sum.HostsUncrawled++
		}
	}
	return sum
}
