package localapi

import (
	"errors"

	"golang.org/x/sys/windows"
)

// addrInUse reports whether a listen failed because the port is taken:
// Windows says so with its own Winsock error, not EADDRINUSE.
func addrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
