// Package can is the pure core of Hivecrawl's overlay: a Content-Addressable
// Network (Ratnasamy et al., 2001) over a d-dimensional unit box, and the
// load balancing on insert (LBI) of paper 002 §4.2.
//
// The space is the box [0,1]^d (d = 3 by default). It is NOT a torus: the
// CAN space is cut out of the network-coordinate space and points outside
// are clamped onto its boundary (design.md §4), so distances are plain
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
//   - The Map, ownership kept by one authority: the split tree that tiles
//     the box, each leaf (named by its Path) held by one peer under an
//     epoch and an expiry, the fields of a zone certificate
//     (p2p/zonecert). Join splits, Leave, Expire and Move hand zones to
//     their heirs (the mergeable sibling, else the abutting holder with the
//     smallest volume), Renew extends a holder's expiry (Extend folds in
//     one recorded apart from the map), and every change returns the
//     leaves to certify. The simulator (sim/) runs the Map, and
//     Route forwards with NextHop hop by hop. In a live network the
//     manager keeps the Map (manager/zones) and certifies its leaves;
//     peers (p2p/node) own a zone only while they hold its certificate.
//
// Caveats: nothing here is safe for concurrent use; a Map has one owner.
// Nothing here reads the clock or draws random numbers: callers pass points
// and the time.
// Very deep zones (peers joining at exactly the same point, as clamped
// coordinates do) split one dimension after another; float64 keeps them
// exact up to about a thousand splits.
package can
