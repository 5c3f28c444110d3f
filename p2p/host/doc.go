// Package host assembles the libp2p host of a Hivecrawl peer in one place,
// the way Kubo's core/node/libp2p does: one concern per file (identity.go,
// rcmgr.go, connmgr.go, relay.go, dht.go, rendezvous.go), wired by New in
// host.go.
//
// A Host listens on TCP and QUIC, secures connections with Noise or TLS,
// limits itself with a resource manager derived from the contributor's
// connection cap (see Limits), trims idle connections with a connection
// manager that never drops protected CAN neighbours, counts bandwidth for the
// governor and the UI, runs AutoNAT, hole punching and the relay client, and
// joins the network's own Kademlia DHT (protocol prefix "/hivecrawl", only the
// network's bootstrap peers, never the public IPFS ones). Overlay entry points
// are advertised and found under a rendezvous string through routing
// discovery.
//
// Caveats: UPnP/NAT-PMP port mapping is off unless Config.PortMap is set,
// since it sends multicast traffic on the local network. A peer with
// Config.Public set claims public reachability without asking AutoNAT, and
// offers relay and AutoNAT service to others; only set it on machines that
// really are reachable.
package host
