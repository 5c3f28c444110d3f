package storage

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// Receiving an upload: the stream's handler, the checks of its header
// before a slot is taken, the spooled pages admitted against the memory
// budget, and the answer. accept.go decides what the upload earns.

// storeCost estimates the memory storing an upload takes when its largest
// page message is of largest bytes: that message read and decoded, its
// text decompressed and written, and a search batch being analysed.
func storeCost(largest int) int64 {
	return 4*int64(largest) + searchCost
}

// searchCost is what the search index takes to analyse one batch of
// searchBatchText bytes of text: about 32 MB of live heap measured, for
// text with term vectors kept for snippets.
const searchCost = 32 << 20

// DefaultBusyWait is Options.BusyWait's default. Uploads come in bursts
// (every volunteer holding results delivers them the moment a manager
// that was down answers again): they are taken in turn, while their
// uploaders' writes wait on the stream's flow control.
const DefaultBusyWait = 30 * time.Second

func (s *Storage) handle(st network.Stream) {
	s.busy.add(1)
	defer s.busy.add(-1)
	defer st.Close()
	from := st.Conn().RemotePeer()
	st.SetDeadline(time.Now().Add(s.opts.Timeout))
	br := bufio.NewReader(st)
	// The header is read and checked before a slot is taken: a slot holds
	// an upload in memory, and a peer that is not the lease holder of a
	// task this manager issued (or sends nothing) must not keep them.
	h, t, resp := s.readHeader(br, from)
	if resp == nil {
		wait := time.NewTimer(s.opts.BusyWait)
		select {
		case s.sem <- struct{}{}:
			wait.Stop()
			defer func() { <-s.sem }()
		case <-wait.C:
			// The uploader reads the answer only after its last page; left
			// unread, an upload larger than the stream's window would block
			// on it until its timeout. The reset ends its writes at once,
			// and it tries again after its backoff.
			s.log.Debug("Upload turned away: storage busy", "peer", from)
			s.respond(st, &upload.Response{Error: "storage busy, retry later"})
			st.Reset()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
		defer cancel()
		resp = s.receive(ctx, br, from, h, t)
	} else {
		// Read what the uploader still sends, without keeping it, so that
		// it reads the answer and does not send it again.
		io.Copy(io.Discard, io.LimitReader(br, upload.MaxUploadBytes+upload.MaxPages*binary.MaxVarintLen64))
	}
	if resp.Error != "" {
		s.log.Info("Upload refused", "peer", from, "reason", resp.Error)
		if err := s.idx.count(func(t *Totals) { t.Refused++ }); err != nil {
			s.log.Warn("Count refused upload", "err", err)
		}
	}
	s.respond(st, resp)
}

// readHeader reads and checks an upload's header: the header and its
// task when the upload may go on, else the refusal. It refuses what
// Accept would refuse for good from the header alone (mayUpload).
func (s *Storage) readHeader(br *bufio.Reader, from peer.ID) (*upload.Header, *task.Task, *upload.Response) {
	b, err := frame.ReadBytes(br, br, upload.MaxHeaderSize)
	if err != nil {
		return nil, nil, &upload.Response{Error: fmt.Sprintf("read header: %v", err)}
	}
	h, err := upload.DecodeHeader(b)
	if err != nil {
		return nil, nil, &upload.Response{Error: err.Error()}
	}
	t, err := s.open(h)
	if err == nil {
		_, err = s.mayUpload(t, from.String())
	}
	if err != nil {
		return nil, nil, &upload.Response{Error: peerMessage(err), Final: errors.Is(err, errRefused)}
	}
	return h, t, nil
}

// open checks the signature on the task of upload header h.
func (s *Storage) open(h *upload.Header) (*task.Task, error) {
	t, err := envelope.Open(h.Task, s.opts.Manager)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errRefused, err)
	}
	return t, nil
}

// mayUpload returns the record of task t when peer from may upload its
// result: the manager issued it, and from holds its lease or a result of
// it is stored already (Accept answers a repeat or a late one). Errors
// wrapping errRefused are final.
func (s *Storage) mayUpload(t *task.Task, from string) (channels.Task, error) {
	rec, err := s.opts.Tasks.Task(t.ID)
	switch {
	case errors.Is(err, channels.ErrNotFound):
		return rec, fmt.Errorf("%w: task %s was never issued by this manager", errRefused, t.ID)
	case err != nil:
		return rec, err
	}
	if err := s.optedOut(cmp.Or(rec.Host, t.Host())); err != nil {
		return rec, err
	}
	switch {
	case rec.Epoch > 0 && rec.Holder != from:
		// Only the crawler holding the host's lease worked on the host
		// for this task; anyone else's pages are not its result.
		_, found, err := s.idx.receipt(t.ID)
		switch {
		case err != nil:
			return rec, fmt.Errorf("read receipt of task %s: %w", t.ID, err)
		case !found:
			return rec, fmt.Errorf("%w: %w: task %s", errRefused, channels.ErrNotHolder, t.ID)
		}
	}
	return rec, nil
}

// optedOut refuses, for good, an upload of a task on host when host
// opted out of the crawler: what its crawler fetched is not stored.
func (s *Storage) optedOut(host string) error {
	if s.opts.OptOuts == nil || host == "" {
		return nil
	}
	o, ok, err := s.opts.OptOuts.OptedOut(host)
	switch {
	case err != nil:
		return err
	case ok:
		return fmt.Errorf("%w: %w: %s (%s)", errRefused, channels.ErrOptedOut, host, o.Name)
	}
	return nil
}

func (s *Storage) respond(st network.Stream, r *upload.Response) {
	if err := frame.Write(st, r, upload.MaxResponseSize); err != nil {
		s.log.Debug("Upload response not sent", "peer", st.Conn().RemotePeer(), "err", err)
	}
}

// receive reads the pages of the upload whose header h, of task t, was
// read and stores it. The pages are spooled to a file as they come, so
// that neither a slow uploader holds the commit lock nor a large result
// the memory; the store is admitted against Options.Admit.
func (s *Storage) receive(ctx context.Context, br *bufio.Reader, from peer.ID, h *upload.Header, t *task.Task) *upload.Response {
	up, resp := s.spoolUpload(ctx, br, h.Pages)
	if resp != nil {
		return resp
	}
	defer os.Remove(up.path)
	if a := s.opts.Admit; a != nil {
		release, err := a.Admit(ctx, storeCost(up.largest))
		if err != nil {
			return &upload.Response{Error: fmt.Sprintf("storage busy, retry later: %v", err)}
		}
		defer release()
	}
	resp, err := s.accept(ctx, from.String(), t, h, up)
	if err != nil {
		msg := peerMessage(err)
		if msg != err.Error() {
			s.log.Warn("Upload not stored", "task", t.ID, "peer", from, "err", err)
		}
		return &upload.Response{Error: msg, Final: errors.Is(err, errRefused)}
	}
	return resp
}

// errRefused marks the refusals of an upload that sending it again cannot
// change (Response.Final).
var errRefused = errors.New("refused")
