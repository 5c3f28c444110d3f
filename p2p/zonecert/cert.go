package zonecert

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Cert certifies that Holder holds the zone at Path under Epoch until
// Expiry. Sig is the manager's signature over everything else.
type Cert struct {
	Path   can.Path
	Holder peer.ID
	Epoch  uint64
	Expiry time.Time
	Sig    []byte
}

// Encoding limits: a libp2p peer ID is a multihash of at most a few dozen
// bytes (an identity hash of an Ed25519 key is 38), and a signature with
// any key type libp2p signs with fits in 1 KiB.
const (
	version     = 1
	maxIDBytes  = 128
	maxSigBytes = 1024
	// MaxSize bounds an encoded certificate.
	MaxSize = 1 + 2 + (can.MaxDepth+7)/8 + 2 + maxIDBytes + 10 + 10 + 2 + maxSigBytes
)

// domain separates certificate signatures from every other signature the
// manager's key makes.
const domain = "hivecrawl-zonecert/1\x00"

// FromLeaf is the unsigned certificate for leaf l of the manager's map,
// whose holders are libp2p peer IDs in string form.
func FromLeaf(l can.Leaf) (Cert, error) {
	id, err := peer.Decode(string(l.Holder))
	if err != nil {
		return Cert{}, fmt.Errorf("certify zone %q: holder %q is not a peer ID: %w", l.Path, l.Holder, err)
	}
	return Cert{Path: l.Path, Holder: id, Epoch: l.Epoch, Expiry: l.Expiry}, nil
}

// Issue signs the certificate for leaf l with the manager's key.
func Issue(l can.Leaf, key crypto.PrivKey) (Cert, error) {
	c, err := FromLeaf(l)
	if err != nil {
		return Cert{}, err
	}
	if err := c.Sign(key); err != nil {
		return Cert{}, err
	}
	return c, nil
}

// Sign sets c.Sig to key's signature over c.
func (c *Cert) Sign(key crypto.PrivKey) error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("sign zone certificate: %w", err)
	}
	sig, err := key.Sign(append([]byte(domain), c.body()...))
	if err != nil {
		return fmt.Errorf("sign zone certificate %q: %w", c.Path, err)
	}
	c.Sig = sig
	return nil
}

// Verify checks that c is signed by the manager's key; it fails with
// ErrForged otherwise.
func (c Cert) Verify(manager crypto.PubKey) error {
	if manager == nil {
		return fmt.Errorf("verify zone certificate %q: no manager key", c.Path)
	}
	ok, err := manager.Verify(append([]byte(domain), c.body()...), c.Sig)
	if err != nil || !ok {
		return fmt.Errorf("verify zone certificate %q of %s, epoch %d: %w", c.Path, c.Holder, c.Epoch, ErrForged)
	}
	return nil
}

func (c Cert) validate() error {
	if err := c.Path.Validate(); err != nil {
		return err
	}
	if n := len(c.Holder); n == 0 || n > maxIDBytes {
		return fmt.Errorf("holder ID of %d bytes", n)
	}
	if c.Epoch == 0 {
		return fmt.Errorf("epoch 0")
	}
	return nil
}

// body is the signed part of the encoding: everything but the signature.
//
//	version byte, uvarint depth, path bits packed most significant first,
//	uvarint holder length, holder bytes, uvarint epoch,
//	varint expiry (Unix ns)
func (c Cert) body() []byte {
	b := make([]byte, 0, 64+len(c.Path)/8)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(len(c.Path)))
	bits := make([]byte, (len(c.Path)+7)/8)
	for i := 0; i < len(c.Path); i++ {
		if c.Path[i] == '1' {
			bits[i/8] |= 0x80 >> (i % 8)
		}
	}
	b = append(b, bits...)
	b = binary.AppendUvarint(b, uint64(len(c.Holder)))
	b = append(b, c.Holder...)
	b = binary.AppendUvarint(b, c.Epoch)
	return binary.AppendVarint(b, c.Expiry.UnixNano())
}

// MarshalBinary encodes c: its body, then uvarint signature length and the
// signature.
func (c Cert) MarshalBinary() ([]byte, error) {
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("encode zone certificate: %w", err)
	}
	b := c.body()
	b = binary.AppendUvarint(b, uint64(len(c.Sig)))
	return append(b, c.Sig...), nil
}

// Decode parses an encoded certificate, refusing anything else with an
// error wrapping ErrCorrupt. It does not verify the signature: see Verify
// and Book.Accept.
func Decode(b []byte) (Cert, error) {
	c, err := decode(b)
	if err != nil {
		return Cert{}, fmt.Errorf("decode zone certificate: %w: %w", ErrCorrupt, err)
	}
	return c, nil
}

func decode(b []byte) (Cert, error) {
	var c Cert
	if len(b) > MaxSize {
		return c, fmt.Errorf("%d bytes, more than %d", len(b), MaxSize)
	}
	if len(b) == 0 || b[0] != version {
		return c, fmt.Errorf("not a version %d certificate", version)
	}
	off := 1
	uv := func(what string) (uint64, error) {
		v, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, fmt.Errorf("%s at byte %d: bad varint", what, off)
		}
		off += n
		return v, nil
	}
	take := func(n uint64, what string) ([]byte, error) {
		if n > uint64(len(b)-off) {
			return nil, fmt.Errorf("%s at byte %d: past the end", what, off)
		}
		out := b[off : off+int(n)]
		off += int(n)
		return out, nil
	}
	depth, err := uv("path depth")
	if err != nil {
		return c, err
	}
	if depth > can.MaxDepth {
		return c, fmt.Errorf("path of depth %d, deeper than %d", depth, can.MaxDepth)
	}
	bits, err := take((depth+7)/8, "path")
	if err != nil {
		return c, err
	}
	if depth%8 != 0 && bits[len(bits)-1]&(0xff>>(depth%8)) != 0 {
		return c, fmt.Errorf("path's unused bits are not zero")
	}
	p := make([]byte, depth)
	for i := range p {
		p[i] = '0'
		if bits[i/8]&(0x80>>(i%8)) != 0 {
			p[i] = '1'
		}
	}
	c.Path = can.Path(p)
	n, err := uv("holder length")
	if err != nil {
		return c, err
	}
	if n == 0 || n > maxIDBytes {
		return c, fmt.Errorf("holder ID of %d bytes", n)
	}
	raw, err := take(n, "holder")
	if err != nil {
		return c, err
	}
	if c.Holder, err = peer.IDFromBytes(raw); err != nil {
		return c, fmt.Errorf("holder: %w", err)
	}
	if c.Epoch, err = uv("epoch"); err != nil {
		return c, err
	}
	if c.Epoch == 0 {
		return c, fmt.Errorf("epoch 0")
	}
	exp, m := binary.Varint(b[off:])
	if m <= 0 {
		return c, fmt.Errorf("expiry at byte %d: bad varint", off)
	}
	off += m
	c.Expiry = time.Unix(0, exp).UTC()
	n, err = uv("signature length")
	if err != nil {
		return c, err
	}
	if n == 0 || n > maxSigBytes {
		return c, fmt.Errorf("signature of %d bytes", n)
	}
	sig, err := take(n, "signature")
	if err != nil {
		return c, err
	}
	c.Sig = append([]byte(nil), sig...)
	if off != len(b) {
		return c, fmt.Errorf("%d bytes after the certificate", len(b)-off)
	}
	// One certificate, one encoding: refuse overlong varints.
	if again, err := c.MarshalBinary(); err != nil || !bytes.Equal(again, b) {
		return c, fmt.Errorf("not in canonical form")
	}
	return c, nil
}
