//go:build !linux

package buckettest

// listenPort needs /proc.
func listenPort(int) (int, error) { return 0, errNoProc }
