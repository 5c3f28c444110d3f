// Package whatlanggo stands in for github.com/RadhiFadlillah/whatlanggo
// (go.mod replaces it with this directory): a language detector that
// detects nothing.
//
// go-trafilatura v1.12.2 runs whatlanggo over the whole extracted text of
// every page, whether or not a target language is set, and offers no
// option to skip it; on the crawl benchmark that was about half of the
// CPU time of main-text extraction. Hivecrawl does not use the detected
// language (crawler/extract reports the page's declared <html lang>), and
// sets no target language, the only use go-trafilatura makes of it besides
// filling in its metadata.
//
// Only what go-trafilatura uses is here. Should Hivecrawl ever need to
// detect languages, remove the replace directive and this directory, or
// run a detector of its own on the text it keeps.
package whatlanggo
