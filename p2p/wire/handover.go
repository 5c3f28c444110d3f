package wire

import (
	"context"
	"fmt"
)

// handoverBatchBytes bounds the task bytes of one handover batch, well
// under MaxHandoverSize.
const handoverBatchBytes = 8 << 20

// SplitHandover splits a leaving peer's queued and running tasks into the
// messages of one handover: first, which carries the certificates, and as
// many more as the tasks need, all but the last with More set.
func SplitHandover(first *Handover, queued, running [][]byte) []*Handover {
	out := []*Handover{first}
	cur, size := first, 0
	add := func(e []byte, run bool) {
		if len(cur.Queued)+len(cur.Running) == MaxHandoverTasks || size+len(e) > handoverBatchBytes {
			cur = &Handover{}
			out = append(out, cur)
			size = 0
		}
		if run {
			cur.Running = append(cur.Running, e)
		} else {
			cur.Queued = append(cur.Queued, e)
		}
		size += len(e)
	}
	for _, e := range queued {
		add(e, false)
	}
	for _, e := range running {
		add(e, true)
	}
	for _, b := range out[:len(out)-1] {
		b.More = true
	}
	return out
}

// DeclinedOf returns the tasks of all (in the order sent) at the positions
// an heir declined (HandoverResponse.Declined), each once: an heir that
// names a position twice, or one it was never sent, gets nothing more
// given back for it.
func DeclinedOf(all [][]byte, declined []uint32) [][]byte {
	seen := make(map[uint32]bool, len(declined))
	var out [][]byte
	for _, i := range declined {
		if int64(i) >= int64(len(all)) || seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, all[i])
	}
	return out
}

// SendHandover sends the batches of one handover (SplitHandover) over c
// and returns the positions of the tasks the heir declined: it took the
// zones but not those tasks (its queue was full).
func SendHandover(ctx context.Context, c *Conn, batches []*Handover) ([]uint32, error) {
	for _, b := range batches[:len(batches)-1] {
		if err := c.Write(ctx, b, MaxHandoverSize); err != nil {
			return nil, err
		}
	}
	var resp HandoverResponse
	if err := c.Exchange(ctx, batches[len(batches)-1], MaxHandoverSize, &resp); err != nil {
		return nil, err
	}
	if !resp.Accepted {
		return nil, fmt.Errorf("refused: %s", resp.Error)
	}
	return resp.Declined, nil
}

// Taken is what an heir did with one handed-over task.
type Taken int

const (
	// Queued: the heir queued the task.
	Queued Taken = iota
	// Declined: the heir could not queue a genuine task, and gives it
	// back to the leaving peer, which passes it on.
	Declined
	// Dropped: the task was refused (forged, expired, replayed).
	Dropped
)

// ReceiveHandover reads one handover from c, as an heir: check vets the
// first batch, whose certificates show the sender may hand over (an error
// refuses the handover whole, and is sent back); take is called with each
// task envelope in the order sent. It answers with the tasks queued and
// the positions declined, and returns how many were queued. An error
// reading a batch is returned, unanswered.
func ReceiveHandover(ctx context.Context, c *Conn, check func(*Handover) error, take func(env []byte) Taken) (uint32, error) {
	var (
		queued, pos uint32
		declined    []uint32
	)
	for first := true; ; first = false {
		var m Handover
		if err := c.Read(ctx, &m); err != nil {
			return 0, err
		}
		if first {
			if err := check(&m); err != nil {
				return 0, c.Write(ctx, &HandoverResponse{Error: err.Error()}, MaxHandoverResponseSize)
			}
		}
		for _, e := range append(m.Queued, m.Running...) {
			switch take(e) {
			case Queued:
				queued++
			case Declined:
				if len(declined) < MaxDeclined {
					declined = append(declined, pos)
				}
			}
			pos++
		}
		if !m.More {
			break
		}
	}
	// Tasks is told up to what one batch may carry, all a response may
	// say: a larger count failed validation and the answer was never
	// sent, so the leaving peer took the handover for refused although
	// the heir held its zones and tasks.
	resp := &HandoverResponse{Accepted: true, Tasks: min(queued, MaxHandoverTasks), Declined: declined}
	return queued, c.Write(ctx, resp, MaxHandoverResponseSize)
}
