// Package task holds the small types shared by the crawler, the overlay and
// the manager: a crawl task, the per-page and per-task results it produces,
// and the content digests both sides compare.
//
// The package has no behaviour beyond encoding, decoding and validation, so
// every other package may import it without pulling in the network, disk or
// the HTML stack. Decode is strict: tasks arrive from the overlay, and a
// malformed or oversized one is refused with an error rather than repaired.
package task
