package envelope

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/record"
)

// MaxSize bounds an envelope Open accepts: a payload of up to 1 MiB plus
// key, signature and framing.
const MaxSize = 1<<20 + 4<<10

// Kind names one kind of signed record: the domain string its signatures
// are made for and the payload type it declares.
type Kind struct {
	Domain      string
	PayloadType []byte
}

// raw is a record.Record carrying opaque payload bytes of one Kind.
type raw struct {
	kind    Kind
	payload []byte
}

func (r *raw) Domain() string                 { return r.kind.Domain }
func (r *raw) Codec() []byte                  { return r.kind.PayloadType }
func (r *raw) MarshalRecord() ([]byte, error) { return r.payload, nil }
func (r *raw) UnmarshalRecord(b []byte) error {
	r.payload = append([]byte(nil), b...)
	return nil
}

var _ record.Record = (*raw)(nil)

// SealRecord signs payload as a record of kind k with key and returns the
// envelope's bytes.
func SealRecord(k Kind, payload []byte, key crypto.PrivKey) ([]byte, error) {
	env, err := record.Seal(&raw{kind: k, payload: payload}, key)
	if err != nil {
		return nil, fmt.Errorf("seal %s record: %w", k.Domain, err)
	}
	b, err := env.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encode %s envelope: %w", k.Domain, err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("seal %s record: envelope of %d bytes exceeds %d", k.Domain, len(b), MaxSize)
	}
	return b, nil
}

// OpenPayload verifies that b is an envelope of kind k signed by signer and
// returns its payload bytes. Errors wrap the package's sentinels.
func OpenPayload(b []byte, k Kind, signer crypto.PubKey) ([]byte, error) {
	if len(b) == 0 || len(b) > MaxSize {
		return nil, fmt.Errorf("open %s envelope: %w: %d bytes", k.Domain, ErrUnsigned, len(b))
	}
	env, err := record.UnmarshalEnvelope(b)
	if err != nil {
		return nil, fmt.Errorf("open %s envelope: %w: %v", k.Domain, ErrUnsigned, err)
	}
	if env.PublicKey == nil || !env.PublicKey.Equals(signer) {
		return nil, fmt.Errorf("open %s envelope: %w", k.Domain, ErrForged)
	}
	dst := &raw{kind: k}
	if _, err := record.ConsumeTypedEnvelope(b, dst); err != nil {
		if errors.Is(err, record.ErrInvalidSignature) {
			return nil, fmt.Errorf("open %s envelope: %w", k.Domain, ErrAltered)
		}
		return nil, fmt.Errorf("open %s envelope: %w: %v", k.Domain, ErrAltered, err)
	}
	if !bytes.Equal(env.PayloadType, k.PayloadType) {
		return nil, fmt.Errorf("open %s envelope: %w: %q", k.Domain, ErrWrongType, env.PayloadType)
	}
	return dst.payload, nil
}

// OpenRecord verifies b as in OpenPayload and decodes the payload with decode. It
// is the generic form of Open, for other signed records such as credit
// receipts.
func OpenRecord[T any](b []byte, k Kind, signer crypto.PubKey, decode func([]byte) (T, error)) (T, error) {
	var zero T
	payload, err := OpenPayload(b, k, signer)
	if err != nil {
		return zero, err
	}
	v, err := decode(payload)
	if err != nil {
		return zero, fmt.Errorf("open %s envelope: %w: %v", k.Domain, ErrInvalidPayload, err)
	}
	return v, nil
}
