package tit

import (
	"fmt"

	"github.com/gopsim/gopsim/trace"
)

func init() {
	trace.RegisterFormat(trace.Format{Name: "tit", Detect: Detect, Open: openFormat})
}

// openFormat is the registered Open: Open at the host speed asked, and a
// note of the layout and speed it used.
func openFormat(path string, opt trace.OpenOptions) (*trace.Opened, error) {
	t, err := Open(path, Options{HostSpeed: opt.HostSpeed})
	if err != nil {
		return nil, err
	}
	how := "one shared file"
	if !t.Shared {
		how = fmt.Sprintf("an index of %d files", len(t.Files))
	}
	speed := opt.HostSpeed
	if speed == 0 {
		speed = DefaultHostSpeed
	}
	note := fmt.Sprintf("tit: %d ranks in %s, compute at %g flop/s", t.NumRanks(), how, speed)
	return &trace.Opened{Source: t, Note: note}, nil
}
