package liballprof

import (
	"fmt"

	"github.com/gopsim/gopsim/trace"
)

func init() {
	trace.RegisterFormat(trace.Format{Name: "liballprof", Detect: Detect, Open: openFormat})
}

// openFormat is the registered Open: Open with the options that concern
// liballprof, and a note of the files, constants and time unit it used.
func openFormat(path string, opt trace.OpenOptions) (*trace.Opened, error) {
	l, err := Open(path, Options{TimeMult: opt.TimeMult, Unsupported: opt.Unsupported, MPI: opt.MPI})
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("liballprof: %d rank files (%s ...), %s's constants, times in µs multiplied by %g", l.NumRanks(), l.Files[0], l.MPI, opt.TimeMult)
	return &trace.Opened{Source: l, Warnings: l.Warnings, Note: note}, nil
}
