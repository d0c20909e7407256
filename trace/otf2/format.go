package otf2

import "github.com/gopsim/gopsim/trace"

func init() {
	trace.RegisterFormat(trace.Format{Name: "otf2", Detect: Detect, Open: openFormat})
}

// openFormat is the registered Open: Open with the options that concern
// OTF2.
func openFormat(path string, opt trace.OpenOptions) (*trace.Opened, error) {
	t, err := Open(path, Options{Unsupported: opt.Unsupported})
	if err != nil {
		return nil, err
	}
	return &trace.Opened{Source: t, Warnings: t.Warnings}, nil
}
