//go:build race

package extract

// raceEnabled: the race detector multiplies memory use, so memory figures
// are measured in a test binary built without it.
const raceEnabled = true
