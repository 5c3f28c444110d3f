package entry

import (
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Operations on the manager's zone map (Request.Op).
const (
	// OpJoin asks for a zone at Point: the zone holding it is split. A
	// peer holding zones already is moved there (a restarted client).
	OpJoin = "join"
	// OpMove hands the asker's zones to their heirs and joins it at Point.
	OpMove = "move"
	// OpRenew extends the asker's certificates; sent every RenewEvery.
	OpRenew = "renew"
	// OpLeave hands the asker's zones to their heirs.
	OpLeave = "leave"
	// OpReport tells the manager that Suspect, a neighbour, stopped
	// answering: the manager checks it and removes it if it is silent.
	OpReport = "report"
)

// Why an operation was refused (Answer.Refused).
const (
	// RefusedJoinAgain: the asker holds no zone, or its certificates
	// expired. It must join again (OpJoin).
	RefusedJoinAgain = "join again"
	// RefusedTooDeep: the zone at that point is split as deep as the map
	// allows; join at another point.
	RefusedTooDeep = "too deep"
	// RefusedBadPoint: the point is not in the manager's space (its
	// dimension differs).
	RefusedBadPoint = "bad point"
	// RefusedNotNeighbour: the suspect's zones do not abut the reporter's.
	RefusedNotNeighbour = "not a neighbour"
	// RefusedSuspectAnswers: the manager reached the suspect; it stays.
	RefusedSuspectAnswers = "suspect answers"
	// RefusedCheckedRecently: the manager checked the suspect moments ago
	// and it answered then, or the check is under way.
	RefusedCheckedRecently = "checked recently"
	// RefusedNoOp: the request named no operation (a client older than
	// certified zones, which only asked for entry peers).
	RefusedNoOp = "no operation"
	// RefusedNoMap: this manager keeps no zone map (solo mode).
	RefusedNoMap = "no zone map"
	// RefusedUnavailable: the manager could not decide now (its database
	// failed); ask again at the next renewal.
	RefusedUnavailable = "unavailable"
)

// validateOp checks an operation's fields.
func (r *Request) validateOp() error {
	switch r.Op {
	case OpRenew, OpLeave:
	case OpJoin, OpMove:
		if len(r.Point) == 0 || len(r.Point) > maxDim || !finite(r.Point) {
			return fmt.Errorf("%w: point %v", ErrMalformed, r.Point)
		}
		for _, x := range r.Point {
			if x < 0 || x > 1 {
				return fmt.Errorf("%w: point %v outside the unit box", ErrMalformed, r.Point)
			}
		}
	case OpReport:
		if _, err := peer.Decode(r.Suspect); err != nil {
			return fmt.Errorf("%w: suspect %.60q: %v", ErrMalformed, r.Suspect, err)
		}
	case "":
		return fmt.Errorf("%w: no operation", ErrMalformed)
	default:
		return fmt.Errorf("%w: operation %.20q", ErrMalformed, r.Op)
	}
	if len(r.Point) > 0 && r.Op != OpJoin && r.Op != OpMove {
		return fmt.Errorf("%w: a point with operation %q", ErrMalformed, r.Op)
	}
	if r.Suspect != "" && r.Op != OpReport {
		return fmt.Errorf("%w: a suspect with operation %q", ErrMalformed, r.Op)
	}
	return nil
}
