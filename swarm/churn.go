package swarm

import (
	"context"
	"math/rand/v2"
	"time"
)

// ChurnCounts are the events Churn caused.
type ChurnCounts struct {
	Left     int `json:"left"`     // stopped gracefully
	Crashed  int `json:"crashed"`  // killed with SIGKILL
	Rejoined int `json:"rejoined"` // started again
	Failed   int `json:"failed"`   // events that did not work (see the log)
}

// Churn makes clients leave and come back at random until ctx ends: every
// period one client is picked; a running one leaves, gracefully with
// probability 1/3 and by SIGKILL otherwise (paper 000 §4), a stopped one
// rejoins. At least half the clients stay up. Events happen one at a time.
// It returns what it did.
func (s *Swarm) Churn(ctx context.Context, r *rand.Rand, period time.Duration) ChurnCounts {
	var n ChurnCounts
	floor := (len(s.Clients) + 1) / 2
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return n
		case <-t.C:
		}
		up := 0
		for _, c := range s.Clients {
			if c.Running() {
				up++
			}
		}
		c := s.Clients[r.IntN(len(s.Clients))]
		graceful := r.IntN(3) == 0
		switch {
		case !c.Running():
			if err := c.Start(ctx); err != nil {
				if ctx.Err() == nil {
					s.log.Warn("Rejoin failed", "client", c.Name, "err", err)
					n.Failed++
				}
				continue
			}
			n.Rejoined++
		case up <= floor:
			continue
		case graceful:
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := c.Stop(sctx); err != nil {
				s.log.Warn("Graceful leave ended with an error", "client", c.Name, "err", err)
			}
			cancel()
			n.Left++
		default:
			if err := c.Kill(); err != nil {
				n.Failed++
				continue
			}
			n.Crashed++
		}
		s.log.Info("Churn", "client", c.Name, "running", c.Running())
	}
}
