package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// printErr writes err as "gopsim CMD: message". Who prefixes: the library
// packages start their own errors with their name ("sim: ...", "goal:
// ..."), the command line adds "gopsim CMD: "; a message that begins with
// a word of CMD again ("gopsim sim: sim: ...") loses the repetition.
// Tokens the message quotes are cut to a line's worth (excerpt.Message).
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
	fmt.Fprintf(stderr, "gopsim %s: %s\n", cmd, excerpt.Message(msg))
}
