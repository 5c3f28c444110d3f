// Package swarm runs a whole Hivecrawl network on one machine, as separate
// processes of one built hivecrawl binary: a synthetic web (the fixture
// package, each host on its own 127.0.1.x address, answers delayed by an
// emulated round trip), a manager and N volunteer clients, each client on
// its own 127.0.x.1 address (x from 2, a /24 each) with its own data
// directory. It starts, stops
// gracefully, kills (SIGKILL) and restarts them, reads their local API
// files and polls their APIs, and sums up what the swarm did. `hivecrawl
// demo`, the end-to-end churn test and the swarm benchmark are built on it.
//
// Caveats: it needs an OS that routes all of 127.0.0.0/8 to the loopback
// interface (Linux does; elsewhere hosts and clients fall back to
// 127.0.0.1 and latency emulation by address no longer works). All traffic
// stays on loopback. Processes are put in their own process group so a
// Ctrl-C in a terminal reaches only the parent, which stops them in order.
package swarm
