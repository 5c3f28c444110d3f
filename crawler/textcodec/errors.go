package textcodec

import "errors"

// ErrCompression is returned (wrapped) by Decode for text whose
// compression is unknown or that does not decompress within MaxTextBytes.
var ErrCompression = errors.New("bad page text compression")
