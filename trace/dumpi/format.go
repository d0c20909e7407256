package dumpi

import "github.com/gopsim/gopsim/trace"

func init() {
	trace.RegisterFormat(trace.Format{Name: "dumpi", Detect: Detect, Open: openFormat})
}

// openFormat is the registered Open: Open with the options that concern
// DUMPI.
func openFormat(path string, opt trace.OpenOptions) (*trace.Opened, error) {
	d, err := Open(path, Options{Unsupported: opt.Unsupported})
	if err != nil {
		return nil, err
	}
	return &trace.Opened{Source: d}, nil
}
