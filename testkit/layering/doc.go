// Package layering holds only a test: it lists every package's imports with
// `go list -deps` and checks that dependencies point the way design.md §1 and
// STYLE say (the crawler knows nothing of the overlay, nothing imports the
// client's wiring point, pure cores touch no network or disk).
package layering
