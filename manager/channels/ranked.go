package channels

import (
	"slices"

	"github.com/hivecrawl/hivecrawl/internal/domain"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Inter-site channels in order of how many distinct domains link to them
// (docs/developer/leases.md, "Budgets for new hosts"). A result may make only a few
// channels (Options.MaxPerFeedback); the hosts it names that are not
// channels yet are candidates, each with the registrable domains of the
// channels that linked to it. Of a result's URLs, those of candidates
// linked from more domains are taken first, ties in the order reported:
// a site many sites link to goes before one a single site (a trap, a link
// farm) names first.

// Bounds of the ranking: the URLs of one result ranked, and the linking
// domains a candidate keeps.
const (
	maxRanked        = 1000
	maxLinkerDomains = 16
)

// candidate is a host not yet a channel and the domains linking to it.
type candidate struct {
	From []string `json:"from"`
}

// candidateKey is the limits bucket's key of the candidate channel id.
func candidateKey(id string) []byte { return []byte("candidate " + id) }

// rankTx records that channel from links to urls' hosts and returns the
// first maxRanked URLs, most linking domains first, then the rest.
func (d *DB) rankTx(tx kv.Tx, from string, urls []string) ([]string, error) {
	n := min(len(urls), maxRanked)
	linker := domain.Registrable(from)
	lb, chs := tx.Bucket(bucketLimits), channelsIn(tx)
	type scored struct {
		url   string
		score int
	}
	ranked := make([]scored, 0, n)
	seen := make(map[string]int, n) // channel ID → its score
	for _, u := range urls[:n] {
		_, id, err := ParseSeed(u)
		if err != nil {
			ranked = append(ranked, scored{url: u})
			continue
		}
		if s, ok := seen[id]; ok {
			ranked = append(ranked, scored{u, s})
			continue
		}
		exists, err := getJSON(chs, []byte(id), &Channel{})
		if err != nil {
			return nil, err
		}
		var c candidate
		if !exists {
			if _, err := getJSON(lb, candidateKey(id), &c); err != nil {
				return nil, err
			}
			if linker != "" && !slices.Contains(c.From, linker) && len(c.From) < maxLinkerDomains {
				c.From = append(c.From, linker)
				if err := putJSON(lb, candidateKey(id), &c); err != nil {
					return nil, err
				}
			}
		}
		seen[id] = len(c.From)
		ranked = append(ranked, scored{u, len(c.From)})
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return b.score - a.score })
	out := make([]string, 0, len(urls))
	for _, r := range ranked {
		out = append(out, r.url)
	}
	return append(out, urls[n:]...), nil
}

// forgetCandidateTx drops the candidate record of channel id, made now.
func forgetCandidateTx(tx kv.Tx, id string) error {
	return tx.Bucket(bucketLimits).Delete(candidateKey(id))
}
