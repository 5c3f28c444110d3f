package upload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/task"
)

// ErrRefused is returned by Uploader.Upload when the storage module
// refused the upload (the text says why); retrying the same upload will
// not help unless the refusal was "busy".
var ErrRefused = errors.New("upload refused by the storage module")

// StreamOpener is what an Uploader needs from a libp2p host.
type StreamOpener interface {
	NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error)
}

// Uploader is the crawler's side of UploadProtocol: it sends a finished
// task's result and pages to the storage module and returns the signed
// receipt. It implements crawler/taskmgr's Uploader; a repeated delivery
// of a task gets the first receipt back from the storage module.
//
// Wiring in the client: taskmgr.Options.Uploader = &upload.Uploader{Host:
// h, Storage: managerID, Manager: profileKey, Nickname: name}, with the
// manager's addresses in h's peerstore (from the network profile).
type Uploader struct {
	Host    StreamOpener
	Storage peer.ID
	// Manager, when set, is the key receipts must verify with; a receipt
	// that does not is an error.
	Manager  crypto.PubKey
	Nickname string
	// Timeout bounds one upload; default 5 minutes.
	Timeout time.Duration
	// Limiter, when set, meters the bytes sent (the contributor's upload
	// cap); writes wait for it in chunks of at most crawler.ReadChunk.
	Limiter crawler.Limiter
}

var _ taskmgr.Uploader = (*Uploader)(nil)

// Upload sends d and returns the receipt's signed bytes.
func (u *Uploader) Upload(ctx context.Context, d taskmgr.Delivery) ([]byte, error) {
	resp, err := u.send(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("upload task %s: %w", d.TaskID, err)
	}
	if resp.Error != "" {
		if resp.Final {
			return nil, fmt.Errorf("upload task %s: %w: %w: %s", d.TaskID, ErrRefused, taskmgr.ErrRefused, resp.Error)
		}
		return nil, fmt.Errorf("upload task %s: %w: %s", d.TaskID, ErrRefused, resp.Error)
	}
	if u.Manager != nil {
		if _, err := VerifyReceipt(resp.Receipt, u.Manager); err != nil {
			return nil, fmt.Errorf("upload task %s: receipt: %w", d.TaskID, err)
		}
	}
	return resp.Receipt, nil
}

// shed strips page p down to what was fetched, for a page the upload
// cannot carry whole: the storage module keeps no text of a page with an
// error.
func shed(p *task.Page) {
	p.DropRaw()
	p.Text, p.Compression, p.TextBytes, p.Title = nil, "", 0, ""
	p.Error = "too large to upload"
}

func (u *Uploader) send(ctx context.Context, d taskmgr.Delivery) (*Response, error) {
	timeout := u.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var keepRaw []bool
	if d.Spool != "" {
		var err error
		if keepRaw, err = rawBudget(d.Spool); err != nil {
			return nil, fmt.Errorf("read spool: %w", err)
		}
	}
	n := len(keepRaw)
	h := Header{Task: d.Raw, Pages: n, Nickname: u.Nickname}
	if d.Result != nil {
		h.Result = *d.Result
	}
	if len(h.Result.InterSite) > MaxInterSite {
		h.Result.InterSite = h.Result.InterSite[:MaxInterSite]
	}
	st, err := u.Host.NewStream(ctx, u.Storage, UploadProtocol)
	if err != nil {
		return nil, fmt.Errorf("open stream to storage %s: %w", u.Storage, err)
	}
	defer st.Close()
	if dl, ok := ctx.Deadline(); ok {
		st.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { st.Reset() })
	defer stop()
	var out io.Writer = st
	if u.Limiter != nil {
		out = &meteredWriter{ctx: ctx, w: st, lim: u.Limiter}
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	if err := frame.Write(bw, &h, MaxHeaderSize); err != nil {
		return nil, err
	}
	sent, total := 0, 0
	if d.Spool != "" {
		err = crawler.ReadSpool(d.Spool, func(p *task.Page) error {
			if sent++; sent > n {
				return errors.New("spool grew while uploading")
			}
			if !keepRaw[sent-1] {
				p.DropRaw()
			}
			b, err := json.Marshal(p)
			if err != nil {
				return fmt.Errorf("encode page %s: %w", p.URL, err)
			}
			if len(b) > MaxPageSize || total+len(b) > MaxUploadBytes {
				// The storage module cannot take this page whole (a huge
				// text), or the upload would pass its limit: the page goes
				// as what was fetched, without its text, so that neither
				// it nor the pages after it hold up the rest for ever.
				shed(p)
				if b, err = json.Marshal(p); err != nil {
					return fmt.Errorf("encode page %s: %w", p.URL, err)
				}
			}
			total += len(b)
			return frame.WriteBytes(bw, b, MaxPageSize)
		})
		if err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("send upload: %w", err)
	}
	if err := st.CloseWrite(); err != nil {
		return nil, fmt.Errorf("send upload: %w", err)
	}
	br := bufio.NewReader(st)
	b, err := frame.ReadBytes(br, br, MaxResponseSize)
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	return DecodeResponse(b)
}

// rawBudget reads the spool and returns, for each of its pages, whether
// its raw response (task.Page.Raw) goes with it: it does, in spool order,
// while the page's message stays within MaxPageSize and the upload within
// MaxUploadBytes with every page's text counted first. The raw bodies are
// the operator's extra (Task.Raw); the text is the result.
func rawBudget(spool string) ([]bool, error) {
	return rawBudgetWithin(spool, MaxPageSize, MaxUploadBytes)
}

// rawBudgetWithin is rawBudget with the limits given.
func rawBudgetWithin(spool string, maxPage, maxUpload int) ([]bool, error) {
	var (
		keep  []bool
		extra []int // bytes the raw response adds to each page's message
		text  int   // bytes of the messages without raw responses
	)
	err := crawler.ReadSpool(spool, func(p *task.Page) error {
		if p.Raw == nil && p.Header == nil {
			b, err := json.Marshal(p)
			text += len(b)
			keep, extra = append(keep, false), append(extra, 0)
			return err
		}
		with, err := json.Marshal(p)
		if err != nil {
			return err
		}
		p.DropRaw()
		without, err := json.Marshal(p)
		if err != nil {
			return err
		}
		text += len(without)
		keep = append(keep, len(with) <= maxPage)
		extra = append(extra, len(with)-len(without))
		return nil
	})
	if err != nil {
		return nil, err
	}
	budget := maxUpload - text
	for i := range keep {
		if keep[i] = keep[i] && extra[i] <= budget; keep[i] {
			budget -= extra[i]
		}
	}
	return keep, nil
}

// meteredWriter waits for its limiter before each chunk it writes.
type meteredWriter struct {
	ctx context.Context
	w   io.Writer
	lim crawler.Limiter
}

func (m *meteredWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		n := min(len(p), crawler.ReadChunk)
		if err := m.lim.WaitN(m.ctx, n); err != nil {
			return written, err
		}
		k, err := m.w.Write(p[:n])
		written += k
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}
