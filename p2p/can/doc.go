// Package can is the pure core of Hivecrawl's overlay: a Content-Addressable
// Network (Ratnasamy et al., 2001) over a d-dimensional unit box, and the
// load balancing on insert (LBI) of paper 002 §4.2.
//
// The space is the box [0,1]^d (d = 3 by default). It is NOT a torus: the
// CAN space is cut out of the network-coordinate space and points outside
// are clamped onto its boundary (DESIGN §4), so distances are plain
// Euclidean and zones on opposite faces are not neighbours. A Zone is the
// half-open box [Lo, Hi); a zone whose Hi is 1 in some dimension also owns
// the closed upper face there, so every point of [0,1]^d has exactly one
// owner.
//
// Zones come only from halving: a zone at split depth k is split along
// dimension k mod d, so a zone's geometry alone says which zone is its
// sibling and whether two zones merge back into their parent. All split
// coordinates are dyadic, so equality tests on them are exact.
//
// The package serves two callers with the same code:
//
//   - A single networked peer, which knows only its own zones and a
//     neighbour table learned from heartbeats, calls the pure functions
//     NextHop (greedy routing), Abuts (neighbour test), DecideInsert (LBI)
//     and the Zone methods (Contains, Split, Sibling, Parent, Validate).
//   - The global Overlay model, used by tests and the simulator, which holds
//     every peer's zones in a binary partition tree: Join splits, Leave and
//     Crash hand zones over (to the mergeable sibling, else to the neighbour
//     with the smallest zone), and Route forwards with NextHop hop by hop.
//
// Caveats: nothing here is safe for concurrent use; an Overlay has one owner.
// Nothing here measures time or draws random numbers: callers pass points.
// Very deep zones (peers joining at exactly the same point, as clamped
// coordinates do) split one dimension after another; float64 keeps them
// exact up to about a thousand splits.
package can
