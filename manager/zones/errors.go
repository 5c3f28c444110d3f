package zones

import "errors"

// Sentinel errors callers branch on (manager/members turns each into the
// refusal an asker reads).
var (
	// ErrJoinAgain is returned to a peer that holds no zone of the map,
	// or whose certificates expired, when it asks to renew or move: it
	// must join again.
	ErrJoinAgain = errors.New("not a holder of the zone map: join again")
	// ErrTooDeep is returned for a join or move at a point whose zone is
	// split as deep as the map allows (too many peers at one point).
	ErrTooDeep = errors.New("the zone at that point is too deep to split: join at another point")
	// ErrBadPoint is returned for a point of the wrong dimension, not
	// finite, or outside [0,1] in some dimension.
	ErrBadPoint = errors.New("point outside the CAN space")
	// ErrNotNeighbour is returned for a report about a peer whose zones
	// do not abut the reporter's.
	ErrNotNeighbour = errors.New("the suspect's zones do not abut the reporter's")
	// ErrSuspectAnswers is returned for a report about a peer that
	// answered the manager's liveness check: nothing is changed.
	ErrSuspectAnswers = errors.New("the suspect answers the manager")
	// ErrCheckedRecently is returned for a report about a peer the
	// manager checked less than Options.CheckEvery ago.
	ErrCheckedRecently = errors.New("the suspect was checked moments ago")
	// ErrCorrupt is returned when the stored map cannot be read.
	ErrCorrupt = errors.New("stored zone map is corrupt")
)
