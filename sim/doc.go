// Package sim is the root of Hivecrawl's discrete-time simulator, which
// reproduces the experiments of the papers the design follows with the very
// scheduling code the live system runs (design.md §1, §9).
//
// Subpackages:
//
//   - world: the simulated network — a measured latency matrix enlarged by
//     paper 000's replication method, Vivaldi coordinates for crawlers and
//     solved coordinates for web hosts (p2p/coord), mapped into the CAN box.
//   - recrawl: paper 000 §4 (REC and RUC), driving sched/recrawl's
//     strategies over a churning CAN overlay (p2p/can).
//   - assign: paper 002 §5.3, assigning web hosts to crawlers by consistent
//     hashing, NC-CAN and load balancing on insert (with and without
//     pieces), over the same churning overlay.
//   - fountain: paper 001 §5, the WebFountain planner's figures.
//   - plot: small CSV and SVG line-chart writers for the results.
//
// Every run is deterministic for a given seed: randomness comes from
// math/rand/v2 sources seeded by the caller, and time is a step counter.
package sim
