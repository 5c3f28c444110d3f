//go:build !unix && !windows

package governor

// LowerPriority does nothing where the OS has no priority call Go can use.
func LowerPriority() error { return nil }
