package swarm

import "net/http"

// NAT runs a swarm in a NAT lab (swarm/netlab; Linux, as root): the
// web, the manager and Public clients sit on the lab's internet at
// documentation addresses; every other client sits in a home of its own
// behind a home router's NAT, port-restricted (hole punching crosses it)
// except the last Symmetric homes, whose NAT only a relay crosses.
// There is no emulated latency.
type NAT struct {
	Public    int `json:"public"`
	Symmetric int `json:"symmetric"`
}

// webIPBase is the web's addresses in the lab (netlab.WebIP).
const webIPBase = "203.0.113."

// place says where a swarm process runs: its network namespace ("" for
// the machine's own) and its address there.
type place struct {
	ns, ip string
}

// wrap is the command line prefix that runs a process at p.
func (p place) wrap() []string {
	if p.ns == "" {
		return nil
	}
	return []string{"ip", "netns", "exec", p.ns}
}

// httpAt returns a client for the local APIs of processes at p.
func (s *Swarm) httpAt(p place) *http.Client {
	if p.ns == "" {
		return s.http
	}
	return &http.Client{Timeout: s.http.Timeout, Transport: &http.Transport{DialContext: dialIn(p.ns)}}
}
