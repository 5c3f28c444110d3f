package wire

import "time"

// Protocol IDs of the overlay. A change to a message that old peers cannot
// read gets a new version.
const (
	HeartbeatProtocol = "/hivecrawl/can/heartbeat/2.0.0"
	InsertProtocol    = "/hivecrawl/can/insert/2.0.0"
	HandoverProtocol  = "/hivecrawl/can/handover/2.0.0"
	MeasureProtocol   = "/hivecrawl/coord/measure/1.0.0"
)

// Limits on message contents.
const (
	// MaxDims bounds the CAN space's dimension.
	MaxDims = 8
	// MaxZones bounds the zones one peer holds or hands over.
	MaxZones = 64
	// MaxCerts bounds the zone certificates one heartbeat carries: its
	// sender's and its neighbours'.
	MaxCerts = 512
	// MaxCertSize bounds one encoded zone certificate (p2p/zonecert's
	// MaxSize, which this package does not import).
	MaxCertSize = 1280
	// MaxProofSize bounds an encoded claim proof (p2p/zonecert's
	// MaxProofSize, which this package does not import).
	MaxProofSize = 12 << 10
	// MaxNeighbours bounds a neighbour list.
	MaxNeighbours = 256
	// MaxSlots bounds the waiting tasks and idle threads a load announces.
	MaxSlots = 1 << 16
	// MaxAddrs bounds the multiaddrs given for one peer.
	MaxAddrs = 16
	// MaxAddrLen bounds one binary multiaddr.
	MaxAddrLen = 256
	// MaxPeerIDLen bounds a binary peer ID (an inlined Ed25519 key is 38).
	MaxPeerIDLen = 128
	// MaxEnvelopeSize bounds a signed task envelope: a task (at most
	// task.MaxEncodedSize) plus the signature and framing.
	MaxEnvelopeSize = 1<<20 + 4<<10
	// MaxHandoverTasks bounds the task envelopes in one handover batch.
	MaxHandoverTasks = 512
	// MaxDeclined bounds the tasks a handover response gives back as not
	// queued (HandoverResponse.Declined).
	MaxDeclined = 4096
	// MaxErrorLen bounds an error string sent back to a peer.
	MaxErrorLen = 1024
	// MaxHostPortLen bounds a "host:port" to measure.
	MaxHostPortLen = 260
	// MaxSamples bounds the connect times taken for one measurement.
	MaxSamples = 10
	// MaxCoordinate bounds a coordinate component, height, error or
	// adjustment, in milliseconds (17 minutes: anything larger is nonsense).
	MaxCoordinate = 1e6
	// MaxLoad bounds a load figure; an idle peer announces 0.
	MaxLoad = 1e12
	// MaxHops bounds the hops an insert may take before it is refused as
	// looping.
	MaxHops = 1024
)

// Maximum encoded sizes of each message, enforced by the framing before a
// message is decoded.
const (
	MaxHeartbeatSize        = 1 << 20
	MaxInsertSize           = MaxEnvelopeSize + (MaxTTL+1)*MaxCertSize + MaxProofSize + 1<<10
	MaxInsertResponseSize   = 4 << 10
	MaxHandoverSize         = 16 << 20
	MaxHandoverResponseSize = 32 << 10
	MaxMeasureRequestSize   = 1 << 10
	MaxMeasureResponseSize  = 4 << 10
)

// DefaultTimeout is the read/write deadline of one message exchange when the
// caller's context has none.
const DefaultTimeout = 10 * time.Second
