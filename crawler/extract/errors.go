package extract

import "errors"

// ErrContentType is returned (wrapped) by Parse for a body that is neither
// HTML nor text: the crawler should not have fetched it.
var ErrContentType = errors.New("content type not extractable")
