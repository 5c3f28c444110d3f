package localapi

import "time"

// Status is the client's state as the CLI, tray and web page show it.
// Byte rates are bytes per second; every cap of 0 means no cap.
type Status struct {
	Version string `json:"version"`
	// UIURL is the local web page's address.
	UIURL string `json:"ui_url,omitempty"`
	// Desktop says the client runs with its tray, which keeps the
	// start-at-login entry; without one (headless) start_at_login has no
	// effect.
	Desktop bool      `json:"desktop"`
	Started time.Time `json:"started"`
	// State is "running", "throttled" or "paused"; Reasons says why, in
	// words ("Paused: other programs are using 63 % CPU").
	State   string   `json:"state"`
	Reasons []string `json:"reasons,omitempty"`
	// Finishing is set from a Finish until the running tasks ended and
	// the client paused: no new task starts meanwhile.
	Finishing bool `json:"finishing,omitempty"`
	// Preset names the preset the limits equal ("quiet", "standard",
	// "full"), or "custom".
	Preset string `json:"preset,omitempty"`
	// ConfigProblem says why the configuration file was not used (the
	// client then runs with defaults and does not overwrite it).
	ConfigProblem string `json:"config_problem,omitempty"`

	Download    Rate        `json:"download"`
	Upload      Rate        `json:"upload"`
	CPU         CPU         `json:"cpu"`
	Memory      Memory      `json:"memory"`
	Disk        Disk        `json:"disk"`
	Connections Connections `json:"connections"`
	Transfer    Transfer    `json:"transfer"`
	Tasks       Tasks       `json:"tasks"`
	Pages       Pages       `json:"pages"`
	Credits     Credits     `json:"credits"`
	// Overlay is the client's part in its network; nil in local mode.
	Overlay *Overlay `json:"overlay,omitempty"`
}

// Overlay is the client's place in the overlay (design.md §5).
type Overlay struct {
	// Mode is "solo" (an embedded manager and a one-peer overlay) or
	// "network" (a manager's network, from the stored profile).
	Mode string `json:"mode"`
	// Network is the network's name from its profile.
	Network string `json:"network,omitempty"`
	Peer    string `json:"peer"`
	Manager string `json:"manager"`
	// Addrs are the peer's addresses as others may dial it, each ending
	// in /p2p/<Peer>: what an operator lists as another bootstrap peer.
	Addrs []string `json:"addrs,omitempty"`
	// Member says the peer holds a zone and the manager knows it.
	Member bool `json:"member"`
	// ManagerSilent is set while the manager does not answer (the
	// status's reasons say since when).
	ManagerSilent bool `json:"manager_silent,omitempty"`
	// Peers counts the libp2p peers connected.
	Peers int `json:"peers"`
	// BytesIn and BytesOut are the overlay's own traffic since the client
	// started (libp2p's counters): heartbeats, inserts, probes. Crawl and
	// upload bytes are in Transfer.
	BytesIn    int64     `json:"bytes_in"`
	BytesOut   int64     `json:"bytes_out"`
	Zones      []Zone    `json:"zones"`
	Coordinate []float64 `json:"coordinate,omitempty"`
	// Mapped is the coordinate's point in the CAN space under the bounds
	// of training BoundsEpoch (0: the network profile's); Moves counts the
	// rejoins there, Drifts those among them after the first.
	Mapped      []float64   `json:"mapped,omitempty"`
	BoundsEpoch uint64      `json:"bounds_epoch,omitempty"`
	Moves       int64       `json:"moves"`
	Drifts      int64       `json:"drifts"`
	RTL         float64     `json:"rtl"`
	RPL         float64     `json:"rpl"`
	Neighbours  []Neighbour `json:"neighbours"`
	// Accepted, Forwarded, Refused, Reports (silent neighbours reported
	// to the manager), HandedIn and Shared (waiting tasks given to
	// neighbours with idle threads) are the node's counters since it
	// started.
	Accepted  int64 `json:"accepted"`
	Forwarded int64 `json:"forwarded"`
	Refused   int64 `json:"refused"`
	Reports   int64 `json:"reports"`
	HandedIn  int64 `json:"handed_in"`
	Shared    int64 `json:"shared"`
	// NAT is how the peer reaches others and is reached.
	NAT NAT `json:"nat"`
}

// NAT is how a peer reaches and is reached by others (p2p/host.NATStats):
// AutoNAT's verdict, the addresses through relays it announces, its open
// connections by kind and the hole punches it took part in.
type NAT struct {
	Reachability      string `json:"reachability"`
	RelayAddrs        int    `json:"relay_addrs"`
	Direct            int    `json:"direct"`
	HolePunched       int    `json:"hole_punched"`
	Relayed           int    `json:"relayed"`
	HolePunches       int    `json:"hole_punches"`
	HolePunchFailures int    `json:"hole_punch_failures"`
}

// Zone is a box of the CAN space, [Lo, Hi) in each dimension.
type Zone struct {
	Lo []float64 `json:"lo"`
	Hi []float64 `json:"hi"`
}

// Neighbour is one CAN neighbour.
type Neighbour struct {
	Peer  string  `json:"peer"`
	Zones []Zone  `json:"zones"`
	RTL   float64 `json:"rtl"`
	RPL   float64 `json:"rpl"`
	// Link is how the peer is connected to it now: "direct",
	// "hole-punched", "relayed" or "" (not connected).
	Link string `json:"link,omitempty"`
}

// Rate is a measured byte rate and its cap.
type Rate struct {
	Current int64 `json:"current"`
	Cap     int64 `json:"cap"`
}

// CPU readings in percent of the whole machine.
type CPU struct {
	Own           float64 `json:"own"`
	Other         float64 `json:"other"`
	Cap           float64 `json:"cap"`
	BusyThreshold float64 `json:"busy_threshold"`
}

// Memory is the client's resident memory and its cap, in bytes.
type Memory struct {
	RSS int64 `json:"rss"`
	Cap int64 `json:"cap"`
}

// Disk is what Hivecrawl keeps on disk and the free space of its volume,
// as last measured (0 before), with the limits on them (0 = none).
type Disk struct {
	Kept    int64 `json:"kept"`
	Free    int64 `json:"free"`
	Cap     int64 `json:"cap"`
	MinFree int64 `json:"min_free"`
}

// Connections are the open crawl connections and their cap.
type Connections struct {
	Open int `json:"open"`
	Cap  int `json:"cap"`
}

// Transfer counts bytes (down plus up) against the quotas.
type Transfer struct {
	Today        int64 `json:"today"`
	Month        int64 `json:"month"`
	Total        int64 `json:"total"`
	DailyQuota   int64 `json:"daily_quota"`
	MonthlyQuota int64 `json:"monthly_quota"`
}

// Tasks are the task manager's running and queued tasks.
type Tasks struct {
	Running []RunningTask `json:"running"`
	Queued  int           `json:"queued"`
	Threads int           `json:"threads"`
	// Uploading counts results waiting for or in delivery to the
	// network's storage (held while it cannot be reached).
	Uploading int `json:"uploading"`
	// SetAside lists tasks not tried again because Hivecrawl stopped
	// unexpectedly each time it crawled them, most recent first.
	SetAside []SetAsideTask `json:"set_aside,omitempty"`
	// Challenged counts the crawls that sites' firewalls challenged as a
	// bot, of Ended crawls that ended, in the last hour: above a quarter
	// (and three), crawling pauses so the volunteer's address is not
	// flagged.
	Challenged int `json:"challenged"`
	Ended      int `json:"ended"`
}

// SetAsideTask is a task set aside after crashes, and why.
type SetAsideTask struct {
	ID      string    `json:"id"`
	Channel string    `json:"channel"`
	Reason  string    `json:"reason"`
	When    time.Time `json:"when"`
}

// RunningTask is one task thread's progress.
type RunningTask struct {
	ID      string    `json:"id"`
	Channel string    `json:"channel"`
	Pages   int       `json:"pages"`
	Depth   int       `json:"depth"`
	Started time.Time `json:"started"`
	// Known is the pages fetched and found so far (more are found as it
	// goes), bounded by the page limit; PagesLeft the found ones not yet
	// fetched.
	Known     int `json:"known"`
	PagesLeft int `json:"pages_left"`
	// SecondsLeft estimates the time PagesLeft take at the pace so far;
	// absent until there is a pace to go by.
	SecondsLeft float64 `json:"seconds_left,omitempty"`
}

// Pages counts pages crawled.
type Pages struct {
	Today int64 `json:"today"`
	Total int64 `json:"total"`
}

// Credits are the ledger's totals; RecentAverage is credits per day with a
// 7-day half-life (as BOINC's RAC).
type Credits struct {
	Confirmed float64 `json:"confirmed"`
	// Pending waits for a spot-check of its results; Revoked failed one.
	Pending       float64 `json:"pending"`
	Revoked       float64 `json:"revoked,omitempty"`
	RecentAverage float64 `json:"recent_average"`
}
