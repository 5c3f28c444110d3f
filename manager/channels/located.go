package channels

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

var bucketLocated = []byte("located") // host:port → Located

// Located is a web host's network coordinate as members' measurements
// placed it (design.md §2 step 3). The coordinate is kept, not the CAN
// point: when the space's bounds are trained again, hosts move with them
// without being measured again.
type Located struct {
	Coord coord.Coord `json:"c"`
	// Residual is the solver's fit (coord.Solution.Residual), and
	// ProbeError the mean Vivaldi error of the members that measured it.
	Residual   float64 `json:"r"`
	ProbeError float64 `json:"pe"`
	// At is when it was measured.
	At time.Time `json:"t"`
	// Nearest is the member that measured the shortest round trip to the
	// host (a peer ID), where the host is placed while its coordinate is
	// not yet trusted (manager/placement).
	Nearest string `json:"n,omitempty"`
}

// PutLocated stores host's coordinate.
func (d *DB) PutLocated(host string, l Located) error {
	err := d.db.Update(func(tx kv.Tx) error { return putJSON(tx.Bucket(bucketLocated), []byte(host), l) })
	if err != nil {
		return fmt.Errorf("store the coordinate of %s: %w", host, err)
	}
	return nil
}

// GetLocated returns host's stored coordinate and whether there is one.
func (d *DB) GetLocated(host string) (Located, bool, error) {
	var l Located
	var found bool
	err := d.db.View(func(tx kv.Tx) error {
		var err error
		found, err = getJSON(tx.Bucket(bucketLocated), []byte(host), &l)
		return err
	})
	if err != nil {
		return Located{}, false, fmt.Errorf("read the coordinate of %s: %w", host, err)
	}
	return l, found, nil
}
