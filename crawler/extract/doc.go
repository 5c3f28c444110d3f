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
// (it works on its own copy, so the links taken before are unaffected),
// configured for a crawler: comments excluded (reader chatter),
// publication-date search disabled (the crawler keeps no dates). Its
// fallback extractors (go-readability and go-domdistiller) cost about as
// much again, so they run only where trafilatura's result looks weak:
// under its 250-character minimum, under a tenth of the page's visible
// text, longer than all the text outside the page's <nav>, <aside> and
// <footer>, or without a paragraph (see weakText). Trafilatura takes the
// article's body and often leaves out its lead (the paragraph between the
// headline and the body): lines of a sentence or more that stand between
// the page's <h1> and the main text, a few lines at most, go before it
// (see withLead). Trafilatura drops every element whose class or id says
// "teaser"; one without a link is the article's lead and is kept
// (keepTeaserLeads). When both fall short of the minimum, the text is that of
// the page's <article>, else of the whole page without <nav>, <aside> and
// <footer> and the template's ARIA landmarks (role navigation,
// complementary, contentinfo, banner, search); so it is when trafilatura
// fails. A tree too large for trafilatura even with its runs of
// whitespace made single spaces (see MaxTrafilaturaWork) gets the text of
// its main landmark (<main> or role="main"), else of the whole page, both
// without the template's landmarks (landmarkText). Whenever a page has
// visible text, Text is not empty.
//
// Words stay apart on every path. go-trafilatura trims the text around
// inline elements in the tree it returns ("If <em>src</em> and" comes back
// as "If", "src", "and") and, in list items, definition lists and table
// cells, moves an element nested in an inline one after its parent's
// tail. It gets a tree without such nesting (flattenInline), and the text
// of the tree it returns takes its word boundaries from the page's own
// text (respace): where the two agree, a space or line break of the page
// is put back, and a line break the page does not have becomes a space.
// The other paths render the page's own tree or tokens, whose whitespace
// is intact. Permalink marks, <a href="#..."> whose text is one mark
// ("¶" after Sphinx headings, "§", "#"), are spaces (dropPermalinks).
//
// go-trafilatura v1.12.2 runs a language detector (whatlanggo) over every
// main text and offers no option to skip it; it was about half the CPU
// time of extraction. This module replaces whatlanggo with a stub that
// detects nothing (third_party/nowhatlang); Page.Language is the language
// the page declares. Text is normalised: whitespace collapsed within
// paragraphs, paragraphs on their own lines, soft hyphens dropped, valid
// UTF-8 in Unicode normal form C.
//
// Caveats: links are listed even when the page says nofollow; the caller
// decides. Plain-text bodies yield text and no links.
package extract
