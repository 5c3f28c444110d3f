// Package placement puts web hosts where the volunteers nearest to them on
// the network will crawl them (design.md §2 step 3, paper 002 §3): the
// Trainer cuts the CAN space's bounds from the members' settled network
// coordinates and publishes them signed, and the Locator solves a host's
// coordinate from members' RTT measurements and maps it into the space
// with the current bounds. The manager wires both: the trainer runs with
// each schedule round, the locator is the task submitter's
// (manager/submit).
package placement
