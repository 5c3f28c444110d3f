package export

import (
	"strings"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// MaxTextBytes caps a page's decompressed text (textcodec.MaxTextBytes).
const MaxTextBytes = textcodec.MaxTextBytes

// ErrCompression is returned for a page whose Compression is unknown or
// whose text does not decompress within MaxTextBytes
// (textcodec.ErrCompression).
var ErrCompression = textcodec.ErrCompression

// Text returns p's extracted text as valid UTF-8 (invalid bytes become
// U+FFFD), decompressing it as p.Compression says: any compression a
// client ever used (textcodec.Decode). A page without text gives "".
func Text(p *task.Page) (string, error) {
	if len(p.Text) == 0 {
		return "", nil
	}
	raw, err := textcodec.Decode(p.Text, p.Compression)
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD"), nil
}
