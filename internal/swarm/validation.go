package swarm

import (
	"fmt"
	"math"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/app/cheat"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/host"
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
}

// Validation reads what validation did from the stopped manager and the
// clients' homes; pagesServed is the web's count of pages served.
func (s *Swarm) Validation(pagesServed int64) (Validation, error) {
	var v Validation
	cheaters := map[string]bool{}
	var forged []cheat.Forged
	for _, c := range s.Clients {
		if c.Cheat == "" {
			continue
		}
		v.Cheaters++
		if v.CheatModes == nil {
			v.CheatModes = map[string]int{}
		}
		v.CheatModes[c.Cheat]++
		key, err := host.LoadKey(homeDirs(c.Home).PeerKeyFile())
		if err != nil {
			return v, fmt.Errorf("%s's identity: %w", c.Name, err)
		}
		id, err := peer.IDFromPrivateKey(key)
		if err != nil {
			return v, err
		}
		cheaters[id.String()] = true
		fs, err := cheat.ReadLog(homeDirs(c.Home).Data)
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
	round := func(f *float64) { *f = math.Round(*f*100) / 100 }
	round(&v.CreditConfirmedToCheaters)
	round(&v.CreditPendingToCheaters)
	round(&v.CreditRevokedFromCheaters)
	round(&v.HonestCreditRevoked)
	return v, nil
}
