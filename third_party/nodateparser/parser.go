package dateparser

import (
	"errors"
	"time"
)

// ErrNoParser is what Parse returns: this build carries no date parser.
var ErrNoParser = errors.New("dateparser: left out of this build (Hivecrawl extracts no dates)")

// ParserType names one of go-dateparser's parsers.
type ParserType uint8

// The parser types of go-dateparser, in its order.
const (
	Timestamp ParserType = iota
	NegativeTimestamp
	RelativeTime
	CustomFormat
	AbsoluteTime
	NoSpacesTime
)

// PreferredDateSource chooses how incomplete dates are filled in.
type PreferredDateSource uint8

// The date sources of go-dateparser.
const (
	CurrentPeriod PreferredDateSource = iota
	Past
	Future
)

// Configuration holds the settings go-htmldate passes to Parse.
type Configuration struct {
	PreferredDateSource PreferredDateSource
	StrictParsing       bool
}

// Date is a parse result; Parse returns the zero Date.
type Date struct {
	Time time.Time
}

// Parser is go-dateparser's parser, without its parsers.
type Parser struct {
	ParserTypes []ParserType
}

// Parse finds no date: it returns the zero Date and ErrNoParser.
func (p *Parser) Parse(cfg *Configuration, str string, formats ...string) (Date, error) {
	return Date{}, ErrNoParser
}
