// Package profile is the network profile: what a volunteer needs to join a
// Hivecrawl network run by one manager — the manager's public key (tasks
// and credit receipts must verify with it) and the bootstrap addresses of
// the overlay. The manager writes it; `hivecrawl join PROFILE` stores it in
// the client's configuration directory as FileName.
//
// A profile is outside input for the client, so Decode is strict: unknown
// fields, a key that does not parse or does not match the manager's peer
// ID, and addresses that are not multiaddrs ending in that peer are
// refused.
package profile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/jsontext"
	"github.com/hivecrawl/hivecrawl/internal/semver"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// FileName is the profile's name in the client's configuration directory.
const FileName = "network.json"

// Version is the profile format written by this code.
const Version = 1

// Limits on a profile.
const (
	MaxSize      = 64 << 10
	MaxBootstrap = 64
)

// ErrInvalid is wrapped by every Decode failure.
var ErrInvalid = errors.New("invalid network profile")

// Profile describes one Hivecrawl network.
type Profile struct {
	Version int `json:"version"`
	// Name is a label for people; optional.
	Name string `json:"name,omitempty"`
	// Manager is the manager's peer ID.
	Manager string `json:"manager"`
	// ManagerKey is the manager's public key, libp2p protobuf encoding in
	// standard base64.
	ManagerKey string `json:"manager_key"`
	// Bootstrap are the manager's (and other entry peers') multiaddrs,
	// each ending in /p2p/<peer ID>.
	Bootstrap []string `json:"bootstrap"`
	// Bounds, when set, turn on coordinate-aware placement (design.md §4):
	// peers map their Vivaldi coordinate into the CAN space with these
	// bounds (in milliseconds, one pair per dimension) and move to it,
	// and the manager places each web host at its solved coordinate.
	// Without them peers stay at a point hashed from their ID and hosts
	// at one hashed from their name.
	Bounds *coord.Bounds `json:"bounds,omitempty"`
	// SignatureAgent is the origin of the operator's key directory: when
	// set, volunteers sign every request to a web site (Web Bot Auth) and
	// name it in the Signature-Agent header, and the manager certifies
	// their signing keys there.
	SignatureAgent string `json:"signature_agent,omitempty"`
	// MinClientVersion, when set, is the oldest client release (X.Y.Z)
	// the network gives tasks to, so that a volunteer learns before
	// joining that they must update. The manager's refusal of older
	// clients' claims is what enforces it.
	MinClientVersion string `json:"min_client_version,omitempty"`
}

// New returns the profile of a manager with key pub listening on addrs
// (multiaddrs with /p2p/).
func New(name string, pub crypto.PubKey, addrs []string) (*Profile, error) {
	id, err := peer.IDFromPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("new profile: %w", err)
	}
	raw, err := crypto.MarshalPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("new profile: %w", err)
	}
	p := &Profile{Version: Version, Name: name, Manager: id.String(), ManagerKey: base64.StdEncoding.EncodeToString(raw), Bootstrap: addrs}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Key returns the manager's public key.
func (p *Profile) Key() (crypto.PubKey, error) {
	raw, err := base64.StdEncoding.DecodeString(p.ManagerKey)
	if err != nil {
		return nil, fmt.Errorf("%w: manager key: %v", ErrInvalid, err)
	}
	k, err := crypto.UnmarshalPublicKey(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: manager key: %v", ErrInvalid, err)
	}
	return k, nil
}

// ManagerID returns the manager's peer ID.
func (p *Profile) ManagerID() (peer.ID, error) {
	id, err := peer.Decode(p.Manager)
	if err != nil {
		return "", fmt.Errorf("%w: manager peer ID: %v", ErrInvalid, err)
	}
	return id, nil
}

// Validate checks the profile.
func (p *Profile) Validate() error {
	if p.Version != Version {
		return fmt.Errorf("%w: version %d, this program reads %d", ErrInvalid, p.Version, Version)
	}
	id, err := p.ManagerID()
	if err != nil {
		return err
	}
	k, err := p.Key()
	if err != nil {
		return err
	}
	if !id.MatchesPublicKey(k) {
		return fmt.Errorf("%w: manager key does not match peer ID %s", ErrInvalid, id)
	}
	if len(p.Bootstrap) == 0 || len(p.Bootstrap) > MaxBootstrap {
		return fmt.Errorf("%w: %d bootstrap addresses, want 1..%d", ErrInvalid, len(p.Bootstrap), MaxBootstrap)
	}
	if b := p.Bounds; b != nil {
		if len(b.Lo) != can.DefaultDim || len(b.Hi) != can.DefaultDim {
			return fmt.Errorf("%w: bounds have %d and %d dimensions, want %d", ErrInvalid, len(b.Lo), len(b.Hi), can.DefaultDim)
		}
		for i := range b.Lo {
			if math.IsNaN(b.Lo[i]) || math.IsInf(b.Lo[i], 0) || math.IsInf(b.Hi[i], 0) || !(b.Lo[i] < b.Hi[i]) {
				return fmt.Errorf("%w: bounds of dimension %d are not an interval: [%v, %v]", ErrInvalid, i, b.Lo[i], b.Hi[i])
			}
		}
	}
	if a := p.SignatureAgent; a != "" {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(a) > 256 {
			return fmt.Errorf("%w: signature agent %q is not an http(s) origin", ErrInvalid, a)
		}
	}
	if v := p.MinClientVersion; v != "" {
		if _, err := semver.Parse(v); err != nil {
			return fmt.Errorf("%w: minimum client version: %v", ErrInvalid, err)
		}
	}
	for _, a := range p.Bootstrap {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			return fmt.Errorf("%w: bootstrap address %q: %v", ErrInvalid, a, err)
		}
		if _, err := peer.AddrInfoFromP2pAddr(m); err != nil {
			return fmt.Errorf("%w: bootstrap address %q needs /p2p/<peer ID>: %v", ErrInvalid, a, err)
		}
	}
	return nil
}

// Encode returns the profile as indented JSON.
func (p *Profile) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode profile: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode parses and validates a profile.
func Decode(b []byte) (*Profile, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes exceeds %d", ErrInvalid, len(b), MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, jsonProblem(b, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: there is more after the profile's closing brace (%s)", ErrInvalid, jsontext.Position(b, dec.InputOffset()))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Read reads and validates the profile at path.
func Read(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read network profile: %w", err)
	}
	p, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// jsonProblem says in words why b did not decode as a profile, where the
// JSON decoder's error would quote its own internals.
func jsonProblem(b []byte, err error) string {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return "the file is empty"
	case errors.As(err, &syn):
		return "it is not JSON (" + jsontext.Position(b, syn.Offset-1) + ")"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the file is cut short"
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%q is %s where a profile has %s (%s)", typ.Field, typ.Value, jsontext.Kind(typ.Type.Kind()), jsontext.Position(b, typ.Offset))
	case errors.As(err, &typ):
		return "it is " + typ.Value + " where a profile is a JSON object"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "it has an " + strings.TrimPrefix(err.Error(), "json: ") + " (is it a network profile, and of this version of Hivecrawl?)"
	}
	return err.Error()
}

// Write stores p at path atomically (mode 0644: it holds no secret).
func Write(path string, p *Profile) error {
	b, err := p.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write network profile: %w", err)
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write network profile: %w", err)
	}
	return nil
}
