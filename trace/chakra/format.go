package chakra

import "github.com/gopsim/gopsim/trace"

func init() {
	trace.RegisterFormat(trace.Format{Name: "chakra", Detect: Detect, Open: openFormat})
}

// openFormat is the registered Open: Open with the options that concern
// Chakra.
func openFormat(path string, opt trace.OpenOptions) (*trace.Opened, error) {
	t, err := Open(path, Options{Unsupported: opt.Unsupported})
	if err != nil {
		return nil, err
	}
	return &trace.Opened{Source: t, Warnings: t.Warnings}, nil
}
