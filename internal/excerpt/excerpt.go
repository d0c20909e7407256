package excerpt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// Max is the longest token printed whole.
	Max = 64
	// Keep is how many bytes of a longer token are printed.
	Keep = 40
)

// head is the first Keep bytes of s, fewer if the Keep-th byte is inside
// a rune.
func head(s string) string {
	n := Keep
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func length(n int) string { return " (" + strconv.Itoa(n) + " bytes)" }

// Of is s if it has at most Max bytes, else its head, "…" and its length:
// 9999…9 (5000 bytes).
func Of(s string) string {
	if len(s) <= Max {
		return s
	}
	return head(s) + "…" + length(len(s))
}

// Quote is s quoted as by strconv.Quote if it has at most Max bytes, else
// its head quoted with "…" before the closing quote, then its length:
// "xxxx…" (3000 bytes).
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	q := strconv.Quote(head(s))
	return q[:len(q)-1] + `…"` + length(len(s))
}

// Message cuts the long tokens of msg, runs of bytes without a blank: a
// token longer than Max is written as Of writes it, or, if it starts with
// a quote (" or '), as Quote writes it with that quote and the length of
// what is inside. A token holding a slash (a path) is never cut.
func Message(msg string) string {
	var b strings.Builder
	for len(msg) > 0 {
		i := strings.IndexAny(msg, " \t\n")
		if i < 0 {
			i = len(msg)
		}
		b.WriteString(token(msg[:i]))
		if i < len(msg) {
			b.WriteByte(msg[i])
			i++
		}
		msg = msg[i:]
	}
	return b.String()
}

// token is tok, cut as Message cuts it.
func token(tok string) string {
	if len(tok) <= Max || strings.Contains(tok, "/") {
		return tok
	}
	q := tok[:1]
	if q != `"` && q != "'" {
		return Of(tok)
	}
	inner := strings.TrimSuffix(tok[1:], q)
	return q + head(inner) + "…" + q + length(len(inner))
}
