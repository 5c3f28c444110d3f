package export

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/hivecrawl/hivecrawl/task"
)

// MaxTextBytes caps a page's decompressed text. It is far above any real
// page's extracted text (the crawler's body limit is 10 MiB of HTML) and
// stops a zstd bomb from a hostile peer.
const MaxTextBytes = 16 << 20

// ErrCompression is returned for a page whose Compression is unknown or
// whose text does not decompress within MaxTextBytes.
var ErrCompression = errors.New("bad page text compression")

// decoder is shared: DecodeAll is safe for concurrent use.
var decoder = sync.OnceValue(func() *zstd.Decoder {
	// Options are constants, so NewReader cannot fail here.
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(MaxTextBytes), zstd.WithDecoderMaxWindow(MaxTextBytes))
	return d
})

// Text returns p's extracted text as valid UTF-8 (invalid bytes become
// U+FFFD), decompressing it as p.Compression says. A page without text gives
// "".
func Text(p *task.Page) (string, error) {
	if len(p.Text) == 0 {
		return "", nil
	}
	var raw []byte
	switch p.Compression {
	case "":
		raw = p.Text
	case "zstd":
		var err error
		raw, err = decoder().DecodeAll(p.Text, nil)
		if err != nil {
			return "", fmt.Errorf("%w: zstd: %v", ErrCompression, err)
		}
		if len(raw) > MaxTextBytes {
			return "", fmt.Errorf("%w: text exceeds %d bytes", ErrCompression, MaxTextBytes)
		}
	default:
		return "", fmt.Errorf("%w: unknown compression %q", ErrCompression, p.Compression)
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD"), nil
}
