package wire

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
