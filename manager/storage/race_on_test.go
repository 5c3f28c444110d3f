//go:build race

package storage

// raceEnabled: the race detector multiplies memory use, so memory figures
// are measured in a test binary built without it.
const raceEnabled = true
