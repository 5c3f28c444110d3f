// Package wire defines the overlay's wire protocols: versioned libp2p
// protocol IDs, the protobuf messages exchanged on them (wire.proto, compiled
// to wire.pb.go by `go generate`, which needs protoc and protoc-gen-go; the
// generated file is committed so builds and tests do not), the maximum size
// of each message, and length-prefixed framing with deadlines.
//
// Every message read from the network is validated before it is returned:
// dimensions, coordinate ranges, counts, sizes, peer IDs and multiaddrs. A
// message that fails is refused with an error wrapping ErrInvalid; callers
// never see a half-checked message.
//
// Caveats: the package checks form, not meaning. Whether a zone really
// belongs to the sender, or a task envelope carries the manager's signature,
// is decided by the overlay (p2p/node) and p2p/envelope.
package wire
