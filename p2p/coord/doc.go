// Package coord is the pure core of Hivecrawl's network coordinates
// (design.md §4, paper 002 §3): Vivaldi coordinates for peers, a GNP-style
// solver for web hosts, and the transform from the unbounded coordinate
// space into the CAN's unit box.
//
// Units: a Coord is in milliseconds. Vivaldi runs in
// github.com/hashicorp/serf/coordinate, which works in seconds; Client
// converts at its edge. A Coord has serf's shape: a Euclidean vector of
// dimension d (the CAN dimension), a non-negative height (the access-link
// delay every path to the node pays) and an adjustment (a learned
// correction); the estimated RTT between two coordinates is
// ‖a−b‖ + h_a + h_b, plus a_a + a_b when that keeps it positive, exactly as
// serf computes it.
//
// Web hosts run no code. Solve places a host from k ≥ d+1 RTTs measured by
// peers with known coordinates, minimising Σ w_j((‖x−c_j‖ + h_j + a_j − rtt_j) /
// rtt_j)², each probe weighted by its peer's confidence,
// w_j = 1/(0.1 + e_j) for Vivaldi error e_j, with Nelder–Mead (a small in-package implementation, checked
// against gonum's; see neldermead.go for why): the peers' own heights and adjustments are
// subtracted from what they measured, and the host gets height 0 (web
// servers sit on well-connected networks; with k = d+1 measurements a
// height would be one unknown too many). Only the Euclidean part enters the
// CAN transform, so a host and the peer closest to it land close in the box.
//
// Converge runs Vivaldi offline over a latency matrix for the simulator and
// tests.
//
// Bounds maps the Euclidean part into [0,1]^d: per dimension, bounds trained
// from a sample with λ % trimmed off each side; points outside are clamped.
//
// Purity: nothing here reads a clock, the network or disk. Randomness comes
// from a *rand.Rand the caller passes (math/rand/v2). serf draws from the
// global source only when two coordinates coincide exactly; NewClient starts
// every client at a small random offset drawn from the caller's source so
// that this does not happen in practice, which keeps runs reproducible.
package coord
