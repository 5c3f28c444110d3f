// Package extract turns a fetched page into what the crawler keeps: its
// title, outgoing links, robots directives and main text.
//
// Parse decodes the body once (charset from the Content-Type header or a
// byte order mark; else UTF-8 when the whole body is valid UTF-8; else the
// <meta> tags, windows-1252 without one) and parses it once with
// golang.org/x/net/html. A <meta> charset past the first 1024 bytes, which
// a browser honours by parsing again, costs a second parse. One walk of
// that tree yields the title, <base href>, meta robots directives, the
// canonical link and the links of <a href>, <area href>, <frame src> and
// <meta http-equiv=refresh>, each canonicalised with urls.Canonical.
// Documents nested too deeply for the tree builder (over 512 open elements),
// and documents of more than MaxTreeTokens start tags and text runs, are
// read with the tokenizer instead: same links and directives, visible text
// only. A tree costs up to 550 bytes a token on hostile shapes (the builder
// reopens formatting elements), so this keeps a page's parse under about
// 70 MB whatever its shape; links as written are kept once each, and at
// most a few times Options.MaxLinks of them.
//
// When asked, the main text comes from go-trafilatura run on the same tree
// (it works on its own copy, so the links taken before are unaffected).
// Extraction quality matters more than its cost, so trafilatura is kept, but
// configured for a crawler: comments excluded (reader chatter; +10 % CPU),
// publication-date search disabled (the crawler keeps no dates; +20 %), no
// readability/distiller fallback (+60 % here, up to double in trafilatura's
// own benchmark, for about one point of F-score). About half of what remains is
// trafilatura's language detection, which cannot be switched off; its answer
// is kept as Page.Language. When trafilatura finds nothing, or the tree is
// too large for it (see MaxTrafilaturaWork), the text is all visible text of
// the page. Text is normalised: whitespace collapsed within paragraphs,
// paragraphs on their own lines, valid UTF-8.
//
// Caveats: Links are listed even when the page says
// nofollow; the caller decides. Plain-text bodies yield text and no links.
package extract
