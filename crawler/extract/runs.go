package extract

import (
	"io"
)

// Text runs longer than these are cut with an empty comment, "<!---->",
// before the tokenizer sees them: at the first whitespace past softRun
// bytes without a '<', or anywhere at hardRun. golang.org/x/net/html holds
// a whole token in its buffer, and one 10 MB run of text grew it to
// 32 MiB with a 16 MiB copy beside it; cut, a run is one text node after
// another, which the text is read from as before (the cut falls between
// two words, after the whitespace that parts them). In a <title> or
// <textarea> of over 64 KiB the comment shows as text; in a <script> it
// opens and closes an escape at once, which changes nothing.
const (
	softRun = 64 << 10
	hardRun = 1 << 20
)

// cutMark is what runCutter inserts.
const cutMark = "<!---->"

// runCutter reads r with its long text runs cut (softRun, hardRun).
type runCutter struct {
	r       io.Reader
	store   [32 << 10]byte
	buf     []byte // read from r into store, not yet passed on
	pending string // the part of cutMark not yet passed on
	run     int    // bytes since the last '<'
	err     error  // r's error, once buf is drained
}

func cutRuns(r io.Reader) io.Reader { return &runCutter{r: r} }

func (c *runCutter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if c.pending != "" {
			k := copy(p[n:], c.pending)
			c.pending = c.pending[k:]
			n += k
			continue
		}
		if len(c.buf) == 0 {
			if c.err != nil || n > 0 {
				break
			}
			k, err := c.r.Read(c.store[:])
			c.buf, c.err = c.store[:k], err
			continue
		}
		b := c.buf[0]
		c.buf = c.buf[1:]
		p[n] = b
		n++
		switch {
		case b == '<':
			c.run = 0
		case c.run+1 >= hardRun || (c.run+1 >= softRun && isSpace(b)):
			c.pending, c.run = cutMark, 0
		default:
			c.run++
		}
	}
	if n == 0 && c.err != nil {
		return 0, c.err
	}
	return n, nil
}
