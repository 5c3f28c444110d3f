package textcodec

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The names of the compressions Decode knows (task.Page.Compression).
const (
	// None is uncompressed text.
	None = ""
	// Zstd is zstd without a dictionary: uploads from clients before
	// Dict1.
	Zstd = "zstd"
	// Dict1 is zstd with dictionary text-1 (zstd dictionary ID 200001).
	Dict1 = "zstd+text-1"
)

// MaxTextBytes caps a page's decompressed text. It is far above any real
// page's extracted text (the crawler's body limit is 10 MiB of HTML) and
// stops a zstd bomb from a hostile peer.
const MaxTextBytes = 16 << 20

//go:embed dict/text-1.zstdict
var dict1 []byte

// encoderWindow is how far back the encoder finds matches. Its history
// buffer is as large and stays resident in every client that has crawled
// (zstd's default of 8 MB was most of an idle client's heap after its
// first crawl). A page's text is far shorter: on the text of the
// dictionary's training pages (1,265 pages, up to 257 KB each) 512 KB
// compresses to the same bytes as 8 MB.
const encoderWindow = 512 << 10

// encoder is shared: EncodeAll is safe for concurrent use. It holds one
// set of tables (about 1.3 MB) rather than one per CPU, which stayed
// resident after a crawl (14 MB on 8 cores): compressing a page's text
// takes well under a millisecond, so callers hardly ever wait for it.
var encoder = sync.OnceValue(newEncoder)

func newEncoder() *zstd.Encoder {
	// The options and the embedded dictionary are constants, so NewWriter
	// cannot fail here (a test checks the dictionary loads).
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true), zstd.WithEncoderDict(dict1),
		zstd.WithWindowSize(encoderWindow))
	return enc
}

// decoder is shared: DecodeAll is safe for concurrent use. It knows every
// dictionary ever shipped and decodes frames without one as well.
var decoder = sync.OnceValue(func() *zstd.Decoder {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderDicts(dict1),
		zstd.WithDecoderMaxMemory(MaxTextBytes), zstd.WithDecoderMaxWindow(MaxTextBytes))
	return d
})

// Encode compresses text for upload with the newest dictionary and
// returns the compressed bytes and the compression's name.
func Encode(text []byte) (data []byte, compression string) {
	return encoder().EncodeAll(text, nil), Dict1
}

// Decode returns the text data holds, decompressed as compression names.
// Errors wrap ErrCompression.
func Decode(data []byte, compression string) ([]byte, error) {
	switch compression {
	case None:
		return data, nil
	case Zstd, Dict1:
		raw, err := decoder().DecodeAll(data, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCompression, compression, err)
		}
		if len(raw) > MaxTextBytes {
			return nil, fmt.Errorf("%w: text exceeds %d bytes", ErrCompression, MaxTextBytes)
		}
		return raw, nil
	}
	return nil, fmt.Errorf("%w: unknown compression %q", ErrCompression, compression)
}
