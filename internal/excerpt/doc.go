// Package excerpt cuts the long tokens an error message quotes, so that
// the message stays one line: a token of more than Max bytes (a 5,000-digit
// number, a line of garbage) keeps its first Keep bytes, cut at a rune
// boundary, then "…" and its length in bytes.
//
// The parsers quote a bad token with Of or Quote; the command line passes
// every message through Message, which cuts what a library left whole. All
// three write the same format (40 nines or x where ... stands):
//
//	excerpt.Of(strings.Repeat("9", 5000))        // 99...9… (5000 bytes)
//	excerpt.Quote(strings.Repeat("x", 3000))     // "xx...x…" (3000 bytes)
//	excerpt.Message(`bad "` + x3000 + `" here`)  // bad "xx...x…" (3000 bytes) here
package excerpt
