package zones

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Bucket is the bucket the Authority keeps its map in: the store handed to
// New must have been opened with it.
var Bucket = []byte("zones")

// Keys of Bucket (see the package documentation).
var (
	keyMap        = []byte("map")
	keyVersion    = []byte("version")
	prefixRenewal = []byte("renewal/")
)

func renewalKey(id can.PeerID) []byte {
	return append(append([]byte(nil), prefixRenewal...), id...)
}

// readVersion returns the stored version, 0 when no map is stored.
func readVersion(b kv.Bucket) (uint64, error) {
	v := b.Get(keyVersion)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("version of %d bytes: %w", len(v), ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), nil
}

// readMap decodes the stored map of version v (0: none, an empty map).
func readMap(b kv.Bucket, v uint64, dim int, ttl time.Duration) (*can.Map, error) {
	m := can.NewMap(dim, ttl)
	if v == 0 {
		return m, nil
	}
	raw := b.Get(keyMap)
	if raw == nil {
		return nil, fmt.Errorf("version %d without a map: %w", v, ErrCorrupt)
	}
	if err := m.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if m.Dim() != dim {
		return nil, fmt.Errorf("the stored zone map has %d dimensions, the space %d: start a new network or keep the dimension", m.Dim(), dim)
	}
	return m, nil
}

// writeMap stores m as version v.
func writeMap(b kv.Bucket, m *can.Map, v uint64) (int, error) {
	raw, err := m.MarshalBinary()
	if err != nil {
		return 0, err
	}
	if err := b.Put(keyMap, raw); err != nil {
		return 0, err
	}
	return len(raw), b.Put(keyVersion, binary.BigEndian.AppendUint64(nil, v))
}

// readRenewal returns the expiry id's last renewal granted.
func readRenewal(b kv.Bucket, id can.PeerID) (time.Time, bool, error) {
	v := b.Get(renewalKey(id))
	if v == nil {
		return time.Time{}, false, nil
	}
	ns, n := binary.Varint(v)
	if n != len(v) {
		return time.Time{}, false, fmt.Errorf("renewal of %s: %w", id, ErrCorrupt)
	}
	return time.Unix(0, ns).UTC(), true, nil
}

func writeRenewal(b kv.Bucket, id can.PeerID, expiry time.Time) error {
	return b.Put(renewalKey(id), binary.AppendVarint(nil, expiry.UnixNano()))
}

func deleteRenewal(b kv.Bucket, id can.PeerID) error { return b.Delete(renewalKey(id)) }

// readRenewals returns every renewal row.
func readRenewals(b kv.Bucket) (map[can.PeerID]time.Time, error) {
	out := map[can.PeerID]time.Time{}
	err := kv.ForEachPrefix(b, prefixRenewal, func(k, v []byte) error {
		ns, n := binary.Varint(v)
		if n != len(v) {
			return fmt.Errorf("renewal row %q: %w", k, ErrCorrupt)
		}
		out[can.PeerID(k[len(prefixRenewal):])] = time.Unix(0, ns).UTC()
		return nil
	})
	return out, err
}
