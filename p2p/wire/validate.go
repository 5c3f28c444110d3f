package wire

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"unicode"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// MaxTTL bounds an insert's load-balancing TTL.
const MaxTTL = 16

// invalid formats a validation error wrapping ErrInvalid.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// dim checks that n is a usable dimension and agrees with *d, which is set on
// first use (0 = not yet known).
func dim(d *int, n int, what string) error {
	if n < 1 || n > MaxDims {
		return invalid("%s has %d dimensions, want 1 to %d", what, n, MaxDims)
	}
	if *d == 0 {
		*d = n
	} else if *d != n {
		return invalid("%s has %d dimensions, message uses %d", what, n, *d)
	}
	return nil
}

// validatePoint checks a point of the CAN space [0,1]^d.
func validatePoint(p []float64, d *int, what string) error {
	if err := dim(d, len(p), what); err != nil {
		return err
	}
	for i, x := range p {
		if !(x >= 0 && x <= 1) { // also refuses NaN
			return invalid("%s[%d] = %v outside [0,1]", what, i, x)
		}
	}
	return nil
}

// Validate checks a Vivaldi coordinate: 1 to MaxDims finite components and
// error, adjustment and height within MaxCoordinate (error and height not
// negative).
func (c *Coordinate) Validate() error {
	if c == nil {
		return invalid("missing coordinate")
	}
	if n := len(c.Vec); n < 1 || n > MaxDims {
		return invalid("coordinate has %d dimensions, want 1 to %d", n, MaxDims)
	}
	for i, v := range c.Vec {
		if !(math.Abs(v) <= MaxCoordinate) {
			return invalid("coordinate component %d = %v out of range", i, v)
		}
	}
	switch {
	case !(c.Error >= 0 && c.Error <= MaxCoordinate):
		return invalid("coordinate error %v out of range", c.Error)
	case !(c.Height >= 0 && c.Height <= MaxCoordinate):
		return invalid("coordinate height %v out of range", c.Height)
	case !(math.Abs(c.Adjustment) <= MaxCoordinate):
		return invalid("coordinate adjustment %v out of range", c.Adjustment)
	}
	return nil
}

// Validate checks a load: not negative, not NaN; +Inf is allowed and means
// a peer without capacity. Waiting tasks and idle threads are at most
// MaxSlots each.
func (l *Load) Validate() error {
	switch {
	case l == nil:
		return invalid("missing load")
	case !(l.Rtl >= 0) || !(l.Rpl >= 0):
		return invalid("load rtl=%v rpl=%v, want non-negative numbers", l.Rtl, l.Rpl)
	case l.Waiting > MaxSlots || l.Idle > MaxSlots:
		return invalid("load of %d waiting tasks and %d idle threads, want at most %d each", l.Waiting, l.Idle, MaxSlots)
	}
	return nil
}

// ValidatePeerID checks a binary peer ID and returns it.
func ValidatePeerID(b []byte) (peer.ID, error) {
	if len(b) == 0 || len(b) > MaxPeerIDLen {
		return "", invalid("peer ID of %d bytes, want 1 to %d", len(b), MaxPeerIDLen)
	}
	id, err := peer.IDFromBytes(b)
	if err != nil {
		return "", invalid("peer ID: %v", err)
	}
	return id, nil
}

// Validate checks a peer record on its own.
func (p *Peer) Validate() error {
	d := 0
	return p.validate(&d)
}

func (p *Peer) validate(d *int) error {
	if p == nil {
		return invalid("missing peer")
	}
	if _, err := ValidatePeerID(p.Id); err != nil {
		return err
	}
	if len(p.Addrs) > MaxAddrs {
		return invalid("%d addresses exceeds %d", len(p.Addrs), MaxAddrs)
	}
	for _, a := range p.Addrs {
		if len(a) == 0 || len(a) > MaxAddrLen {
			return invalid("address of %d bytes, want 1 to %d", len(a), MaxAddrLen)
		}
		if _, err := ma.NewMultiaddrBytes(a); err != nil {
			return invalid("address: %v", err)
		}
	}
	if p.Coord != nil {
		if err := p.Coord.Validate(); err != nil {
			return err
		}
	}
	if p.Load != nil {
		if err := p.Load.Validate(); err != nil {
			return err
		}
	}
	return nil
}

func validatePeers(ps []*Peer, d *int) error {
	if len(ps) > MaxNeighbours {
		return invalid("%d peers exceeds %d", len(ps), MaxNeighbours)
	}
	for _, p := range ps {
		if err := p.validate(d); err != nil {
			return err
		}
	}
	return nil
}

func validateError(s string) error {
	if len(s) > MaxErrorLen {
		return invalid("error text of %d bytes exceeds %d", len(s), MaxErrorLen)
	}
	return nil
}

func validateEnvelope(b []byte) error {
	if len(b) == 0 || len(b) > MaxEnvelopeSize {
		return invalid("task envelope of %d bytes, want 1 to %d", len(b), MaxEnvelopeSize)
	}
	return nil
}

// Validate checks a heartbeat: the sender, its neighbour list and the
// size of each certificate (their signatures are the receiver's to check).
func (m *Heartbeat) Validate() error {
	d := 0
	if err := m.Self.validate(&d); err != nil {
		return err
	}
	if err := validateCerts(m.Certs, MaxCerts); err != nil {
		return err
	}
	return validatePeers(m.Neighbours, &d)
}

// validateCerts checks the number and sizes of zone certificates.
func validateCerts(cs [][]byte, most int) error {
	if len(cs) > most {
		return invalid("%d certificates exceeds %d", len(cs), most)
	}
	for _, c := range cs {
		if len(c) == 0 || len(c) > MaxCertSize {
			return invalid("certificate of %d bytes, want 1 to %d", len(c), MaxCertSize)
		}
	}
	return nil
}

// Validate checks an insert: envelope size, target point, TTL and hops.
func (m *Insert) Validate() error {
	if err := validateEnvelope(m.Envelope); err != nil {
		return err
	}
	d := 0
	if err := validatePoint(m.Target, &d, "insert target"); err != nil {
		return err
	}
	if m.Ttl > MaxTTL {
		return invalid("ttl %d exceeds %d", m.Ttl, MaxTTL)
	}
	if m.Hops > MaxHops {
		return invalid("%d hops exceeds %d", m.Hops, MaxHops)
	}
	if len(m.Proof) > MaxProofSize {
		return invalid("proof of %d bytes exceeds %d", len(m.Proof), MaxProofSize)
	}
	return validateCerts(m.Path, MaxTTL+1)
}

// Validate checks an insert response; an accepted insert names its owner.
func (m *InsertResponse) Validate() error {
	if err := validateError(m.Error); err != nil {
		return err
	}
	if m.Hops > MaxHops {
		return invalid("%d hops exceeds %d", m.Hops, MaxHops)
	}
	if m.Accepted == (m.Error != "") {
		return invalid("insert response must be accepted or carry an error, not both or neither")
	}
	if m.Accepted {
		if _, err := ValidatePeerID(m.Owner); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks a handover batch: certificates, task counts and sizes.
func (m *Handover) Validate() error {
	if err := validateCerts(m.Certs, MaxZones); err != nil {
		return err
	}
	if n := len(m.Queued) + len(m.Running); n > MaxHandoverTasks {
		return invalid("%d tasks in one handover batch exceeds %d", n, MaxHandoverTasks)
	}
	for _, set := range [][][]byte{m.Queued, m.Running} {
		for _, e := range set {
			if err := validateEnvelope(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate checks a handover acknowledgement.
func (m *HandoverResponse) Validate() error {
	if err := validateError(m.Error); err != nil {
		return err
	}
	if m.Tasks > MaxHandoverTasks {
		return invalid("%d tasks exceeds %d", m.Tasks, MaxHandoverTasks)
	}
	if len(m.Declined) > MaxDeclined {
		return invalid("%d declined tasks exceeds %d", len(m.Declined), MaxDeclined)
	}
	if m.Accepted == (m.Error != "") {
		return invalid("handover response must be accepted or carry an error, not both or neither")
	}
	return nil
}

// Validate checks a measurement request: a "host:port" with a numeric port
// and 0 (default) to MaxSamples samples. Whether the host may be dialled is
// p2p/rtt's decision.
func (m *MeasureRequest) Validate() error {
	if _, _, err := SplitHostPort(m.HostPort); err != nil {
		return err
	}
	if m.Samples > MaxSamples {
		return invalid("%d samples exceeds %d", m.Samples, MaxSamples)
	}
	return nil
}

// SplitHostPort parses and checks a "host:port" to measure.
func SplitHostPort(hp string) (host string, port uint16, err error) {
	if hp == "" || len(hp) > MaxHostPortLen {
		return "", 0, invalid("host:port of %d bytes, want 1 to %d", len(hp), MaxHostPortLen)
	}
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, invalid("host:port %q: %v", hp, err)
	}
	if h == "" {
		return "", 0, invalid("host:port %q has no host", hp)
	}
	for _, r := range h {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' {
			return "", 0, invalid("host %q contains %q", h, r)
		}
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return "", 0, invalid("port %q is not 1 to 65535", p)
	}
	return h, uint16(n), nil
}

// Validate checks a measurement result: an error, or a median within a
// minute from 1 to MaxSamples samples.
func (m *MeasureResponse) Validate() error {
	if err := validateError(m.Error); err != nil {
		return err
	}
	if m.Coord != nil {
		if err := m.Coord.Validate(); err != nil {
			return err
		}
	}
	if m.Error != "" {
		return nil
	}
	if m.MedianMicros == 0 || m.MedianMicros > 60_000_000 {
		return invalid("median %d µs outside 1 µs to 1 min", m.MedianMicros)
	}
	if m.Samples < 1 || m.Samples > MaxSamples {
		return invalid("%d samples, want 1 to %d", m.Samples, MaxSamples)
	}
	return nil
}
