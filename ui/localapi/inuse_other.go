//go:build !windows

package localapi

import (
	"errors"
	"syscall"
)

// addrInUse reports whether a listen failed because the port is taken.
func addrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
