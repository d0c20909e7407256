package cli

import (
	"errors"
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

// usageError marks a mistake of the command line found after parsing:
// flags that need or exclude each other, or a value a flag cannot take.
// The command exits with ExitUsage for it (exitCode), as for a mistake the
// flag parser finds.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageMistake marks err as a mistake of the command line (nil stays nil).
func usageMistake(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitCode is the exit status of a command that failed with err:
// ExitUsage for a mistake of the command line, ExitError otherwise.
func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	return ExitError
}
