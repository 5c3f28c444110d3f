package whatlanggo

// Lang is a language; this build knows none.
type Lang int

// Unknown is the only language DetectLang returns.
const Unknown Lang = -1

// DetectLang returns Unknown: this build carries no detector.
func DetectLang(string) Lang { return Unknown }

// Iso6391 returns the language's ISO 639-1 code: "" for Unknown.
func (Lang) Iso6391() string { return "" }
