// Package upload is the storage protocol as both ends speak it: a crawler
// sends a finished task's result to the manager's storage module
// (manager/storage) and gets a signed credit receipt back (Uploader on the
// crawler's side); it later asks for the receipts signed again once a
// spot-check settled them (FetchReceipts over ReceiptsProtocol). The
// messages, their limits and the receipt's envelope are here; what the
// module does with an upload is not.
//
// # Protocol
//
// One stream per upload. The crawler sends a Header (the manager-signed
// task envelope as it received it, the task's Result, the page count and
// an optional nickname), then that many task.Page messages, and closes its
// side; the module answers with one Response. Every message is an
// unsigned-varint length and JSON (proto/frame), with the Max* limits
// checked before decoding. The uploader's identity is the stream's
// authenticated remote peer, never a field of the message.
//
// A receipt is a task.Receipt sealed in a p2p/envelope record of
// ReceiptKind with the manager's key, which the network profile
// publishes: anyone holding the profile can check it (VerifyReceipt).
package upload
