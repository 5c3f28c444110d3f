// Package textcodec compresses extracted page text for upload and
// decompresses it on the other side (storage, export, validation).
//
// Text is zstd-compressed with a dictionary trained on extracted text
// (dict/text-1.zstdict, embedded, so every client ships it). Extracted
// texts are short — a few kilobytes — and zstd without a dictionary
// spends much of such a text learning its words; with one it starts out
// knowing the common ones. The dictionary is versioned: an upload names
// it in task.Page.Compression (Dict1), and Decode keeps every version it
// ever shipped, as well as plain "zstd" (uploads from clients before
// dictionaries) and "" (uncompressed). A new dictionary gets a new name
// and a new zstd dictionary ID; old ones are never changed or removed.
//
// How the dictionary was made (docs/developer/benchmarks.md, issue 20, has the
// figures): `go run ./bench/textsize -samples DIR` writes
// the extracted text of every other page of Debian's python3-doc and of a
// synthetic site (package fixture) under other host names than the crawl
// benchmark's, one file each; then
//
//	zstd --train -r DIR --maxdict=65536 --dictID=200001 -o crawler/textcodec/dict/text-1.zstdict
//
// Decode caps the decompressed size (MaxTextBytes): uploads come from
// other peers and are outside input.
package textcodec
