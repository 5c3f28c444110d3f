package manager

import "github.com/hivecrawl/hivecrawl/manager/operator"

// maxLeaders bounds the leaderboard.
const maxLeaders = 20

// Status gathers the manager's figures.
func (m *Manager) Status() (operator.Status, error) {
	st := operator.Status{Peer: m.ID().String(), Addrs: m.Addrs(), Profile: m.ProfilePath(), Strategy: m.opts.Schedule.Strategy}
	all, err := m.db.All(0)
	if err != nil {
		return st, err
	}
	st.Channels = len(all)
	for g, iv := range m.sched.Intervals() {
		st.Groups = append(st.Groups, operator.GroupStatus{Group: g, Interval: iv})
	}
	m.mu.Lock()
	st.Sent, st.SendFailures = m.dispatch.Counts()
	st.PeersSeen = len(m.peers)
	m.mu.Unlock()
	for _, c := range all {
		if c.Group < len(st.Groups) {
			st.Groups[c.Group].Channels++
		}
		if c.Updates > 0 {
			st.Crawled++
		}
	}
	if st.History, err = m.sched.History(); err != nil {
		return st, err
	}
	ts, err := m.db.Stats()
	if err != nil {
		return st, err
	}
	st.Tasks, st.Cancelled = ts.Counts, ts.Cancelled
	if !ts.OldestOpen.IsZero() {
		st.OldestOpen = &ts.OldestOpen
	}
	st.PeersNow = len(m.host.Network().Peers())
	if st.Stored, err = m.store.Totals(); err != nil {
		return st, err
	}
	if st.Contributors, err = m.store.Contributors(); err != nil {
		return st, err
	}
	if len(st.Contributors) > maxLeaders {
		st.Contributors = st.Contributors[:maxLeaders]
	}
	if st.Swarm, err = m.swarm(); err != nil {
		return st, err
	}
	st.Throughput = m.thru.Points()
	if st.PushBack, err = m.db.PushBacks(m.opts.Now(), maxLeaders); err != nil {
		return st, err
	}
	return st, nil
}
