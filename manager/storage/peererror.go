package storage

import (
	"errors"
	"io/fs"
	"os"
)

// peerMessage is err as told to the uploading peer: a file system error
// (a full disk, a failed sync) becomes a sentence without the manager's
// local paths, which are no peer's business; others are told as they
// are.
func peerMessage(err error) string {
	var (
		pe *fs.PathError
		le *os.LinkError
		se *os.SyscallError
	)
	var cause error
	switch {
	case errors.As(err, &pe):
		cause = pe.Err
	case errors.As(err, &le):
		cause = le.Err
	case errors.As(err, &se):
		cause = se.Err
	default:
		return err.Error()
	}
	return "storage could not write the upload (" + cause.Error() + "); keep it and retry later"
}
