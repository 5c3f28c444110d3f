package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/libp2p/go-msgio/pbio"
	"google.golang.org/protobuf/proto"
)

// Stream is what framing needs from a libp2p stream (network.Stream has it).
type Stream interface {
	io.ReadWriter
	SetDeadline(time.Time) error
}

// Message is a wire message that validates itself.
type Message interface {
	proto.Message
	Validate() error
}

// Conn frames messages on one stream: unsigned-varint length prefix, then
// the protobuf bytes (go-msgio/pbio). Reads are buffered, so use one Conn per
// stream for its whole life.
type Conn struct {
	s       Stream
	r       pbio.Reader
	w       pbio.Writer
	maxRead int
}

// NewConn frames s; maxRead is the size limit of the messages read from it
// (the Max*Size constant of what the other side sends).
func NewConn(s Stream, maxRead int) *Conn {
	return &Conn{s: s, r: pbio.NewDelimitedReader(s, maxRead), w: pbio.NewDelimitedWriter(s), maxRead: maxRead}
}

// deadline arms the stream's deadline from ctx (DefaultTimeout when ctx has
// none) and makes ctx's cancellation interrupt the I/O. The returned func
// disarms it.
func (c *Conn) deadline(ctx context.Context) (func(), error) {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(DefaultTimeout)
	}
	if err := c.s.SetDeadline(dl); err != nil {
		return nil, fmt.Errorf("set deadline: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { c.s.SetDeadline(time.Now()) })
	return func() { stop() }, nil
}

// Write validates m, checks it against max and sends it.
func (c *Conn) Write(ctx context.Context, m Message, max int) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("send %T: %w", m, err)
	}
	if n := proto.Size(m); n > max {
		return fmt.Errorf("send %T: %w: %d bytes exceeds %d", m, ErrTooLarge, n, max)
	}
	done, err := c.deadline(ctx)
	if err != nil {
		return fmt.Errorf("send %T: %w", m, err)
	}
	defer done()
	if err := c.w.WriteMsg(m); err != nil {
		return fmt.Errorf("send %T: %w", m, ctxErr(ctx, err))
	}
	return nil
}

// Read receives one message into m and validates it.
func (c *Conn) Read(ctx context.Context, m Message) error {
	done, err := c.deadline(ctx)
	if err != nil {
		return fmt.Errorf("receive %T: %w", m, err)
	}
	defer done()
	if err := c.r.ReadMsg(m); err != nil {
		if errors.Is(err, io.ErrShortBuffer) {
			return fmt.Errorf("receive %T: %w: over %d bytes", m, ErrTooLarge, c.maxRead)
		}
		return fmt.Errorf("receive %T: %w", m, ctxErr(ctx, err))
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("receive %T: %w", m, err)
	}
	return nil
}

// Exchange sends req (limited to maxReq bytes) and reads the response.
func (c *Conn) Exchange(ctx context.Context, req Message, maxReq int, resp Message) error {
	if err := c.Write(ctx, req, maxReq); err != nil {
		return err
	}
	return c.Read(ctx, resp)
}

// ctxErr prefers the context's error to the deadline error it caused. The
// stream's deadline is ctx's own, and its timer may fire a moment before
// ctx's, so a timeout once ctx's deadline has passed is ctx's deadline too.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	var timeout interface{ Timeout() bool }
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) &&
		(errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &timeout) && timeout.Timeout()) {
		return fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
	}
	return err
}

// Unmarshal decodes one unframed message of at most max bytes into m and
// validates it. Conn.Read does the same after framing.
func Unmarshal(b []byte, m Message, max int) error {
	if len(b) > max {
		return fmt.Errorf("decode %T: %w: %d bytes exceeds %d", m, ErrTooLarge, len(b), max)
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("decode %T: %w: %v", m, ErrInvalid, err)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("decode %T: %w", m, err)
	}
	return nil
}
