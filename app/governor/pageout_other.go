//go:build !linux

package governor

// pageOutCode does nothing outside Linux.
func pageOutCode() int64 { return 0 }
