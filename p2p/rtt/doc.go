// Package rtt measures the HTTP round-trip time from this peer to a web
// host, the input of the web-host coordinate solver (design.md §4): the median
// of a few TCP connect times to host:port, bounded by a timeout. It also
// serves and asks the overlay's measure protocol (wire.MeasureProtocol), so a
// bootstrap peer can collect measurements from peers whose coordinates are
// known.
//
// Only public addresses are dialled, after DNS resolution (code.dny.dev/ssrf
// checks each address in the dialer's Control hook), so a peer cannot be
// used to probe its contributor's local network. Config.AllowLoopback admits
// 127.0.0.0/8 and ::1 for tests and local demos only.
//
// Caveats: a TCP connect time includes the remote kernel's SYN/ACK only, not
// the web server's processing, which is what the coordinate space wants; a
// host behind a CDN measures to its nearest edge.
package rtt
