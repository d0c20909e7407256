package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// printErr writes err as "gopsim CMD: message". Who prefixes: the library
// packages start their own errors with their name ("sim: ...", "goal:
// ..."), the command line adds "gopsim CMD: "; a message that begins with
// a word of CMD again ("gopsim sim: sim: ...") loses the repetition.
// Tokens the message quotes are cut to a line's worth (shortTokens).
func printErr(stderr io.Writer, cmd string, err error) {
	msg := err.Error()
	for {
		trimmed := false
		for _, w := range strings.Fields(cmd) {
			if rest, ok := strings.CutPrefix(msg, w+": "); ok {
				msg, trimmed = rest, true
			}
		}
		if !trimmed {
			break
		}
	}
	fmt.Fprintf(stderr, "gopsim %s: %s\n", cmd, shortTokens(msg))
}

// maxToken is the longest run of characters without a space or a slash
// that an error prints whole; a longer one (a 5,000-digit number, a line
// of garbage) is cut to its first 40 characters and "…". Paths, which
// hold slashes, are never cut.
const maxToken = 64

// shortTokens cuts the long tokens of msg.
func shortTokens(msg string) string {
	var b strings.Builder
	for len(msg) > 0 {
		i := strings.IndexAny(msg, " \t\n")
		if i < 0 {
			i = len(msg)
		}
		tok := msg[:i]
		if len(tok) > maxToken && !strings.Contains(tok, "/") {
			cut := 40
			for cut > 0 && !utf8.RuneStart(tok[cut]) {
				cut--
			}
			tail := ""
			if tok[0] == '"' || tok[0] == '\'' {
				tail = tok[:1]
			}
			tok = tok[:cut] + "…" + tail + fmt.Sprintf(" (%d bytes)", len(tok))
		}
		b.WriteString(tok)
		if i < len(msg) {
			b.WriteByte(msg[i])
			i++
		}
		msg = msg[i:]
	}
	return b.String()
}
