package storage

import (
	"hash/maphash"
	"unicode"
	"unicode/utf8"
)

// maxShingleWords bounds the words a text's shingles are taken from: the
// first 20,000 words tell two versions of a page apart as well as all.
const maxShingleWords = 20000

var shingleSeed = maphash.MakeSeed()

// shingles returns the set of a text's word pairs (single words for a
// text of one word), lower-cased, hashed.
func shingles(text string) map[uint64]struct{} {
	set := make(map[uint64]struct{})
	var prev, word []byte
	words := 0
	add := func() {
		if len(word) == 0 {
			return
		}
		words++
		var h maphash.Hash
		h.SetSeed(shingleSeed)
		h.Write(prev)
		h.WriteByte(0)
		h.Write(word)
		set[h.Sum64()] = struct{}{}
		prev, word = word, nil
	}
	for i := 0; i < len(text) && words < maxShingleWords; {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, unicode.ToLower(r))
			continue
		}
		add()
	}
	add()
	return set
}

// similarity is the Jaccard similarity of two texts' word-pair sets, from
// 0 (nothing in common) to 1 (the same words in the same order); two empty
// texts are the same.
func similarity(a, b string) float64 {
	sa, sb := shingles(a), shingles(b)
	if len(sa) == 0 && len(sb) == 0 {
		return 1
	}
	if len(sa) > len(sb) {
		sa, sb = sb, sa
	}
	both := 0
	for h := range sa {
		if _, ok := sb[h]; ok {
			both++
		}
	}
	return float64(both) / float64(len(sa)+len(sb)-both)
}
