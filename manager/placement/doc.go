// Package placement puts web hosts where the volunteers nearest to them on
// the network will crawl them (design.md §2 step 3, paper 002 §3): the
// Trainer cuts the CAN space's bounds from the members' settled network
// coordinates and publishes them signed, and the Locator solves a host's
// coordinate from members' RTT measurements, which chooses who measures
// it next, and places it at the anchor of the member that measured it
// nearest (the coordinate mapped with the current bounds when that member
// holds no zone). The manager wires both: the trainer runs with
// each schedule round, the locator is the task submitter's
// (manager/submit).
package placement
