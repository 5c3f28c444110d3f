package storage

import (
	"bufio"
	"time"

	"github.com/libp2p/go-libp2p/core/network"

	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/proto/upload"
)

func (s *Storage) handleReceipts(st network.Stream) {
	defer st.Close()
	st.SetDeadline(time.Now().Add(30 * time.Second))
	var req upload.ReceiptsRequest
	if err := frame.Read(bufio.NewReader(st), &req, upload.MaxReceiptsMessage); err != nil || len(req.Tasks) > upload.MaxReceiptsAsked {
		st.Reset()
		return
	}
	from := st.Conn().RemotePeer().String()
	var ans upload.ReceiptsAnswer
	for _, id := range req.Tasks {
		rc, found, err := s.idx.receipt(id)
		if err != nil {
			s.log.Warn("Receipt not read", "task", id, "err", err)
			continue
		}
		if found && rc.Peer == from {
			ans.Receipts = append(ans.Receipts, rc.Raw)
		}
	}
	if err := frame.Write(st, ans, upload.MaxReceiptsMessage); err != nil {
		s.log.Debug("Receipts not sent", "peer", from, "err", err)
	}
}
