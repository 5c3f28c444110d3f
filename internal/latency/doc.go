// Package latency holds the measured Internet round-trip-time matrices the
// project simulates and emulates networks with, and a loader for them.
//
// The matrices are embedded from data/ (source and MIT licence in
// data/README.md and data/LICENSE): PlanetLab, 490 nodes, RTTs in
// milliseconds, and Seattle, 99 mostly personal devices, RTTs in seconds,
// which PlanetLab and Seattle return converted to milliseconds. An entry that
// is 0 off the diagonal, negative, missing or not a number is unknown, not
// zero latency: RTT reports it with ok = false.
//
// Replicate enlarges a matrix to more nodes by paper 000's method without
// storing an m×m table, so the simulator can place thousands of crawlers
// and web hosts on it.
//
// Caveats: entry (i, j) is the RTT measured from i to j and need not equal
// (j, i). The Seattle matrix has a resolution of 10 ms.
package latency
