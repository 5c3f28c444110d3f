// Package operator is the manager's face to its operator: the local API
// on loopback (seeds, opt-outs, key withdrawal, GET /api/status) and the
// status page drawn from the same Status, with its charts of intervals
// and throughput and its map of the swarm. It asks the manager only what
// Service names; the types of its answers (Status and the requests and
// responses) are what `hivecrawl` commands and tests decode.
package operator
