// Package traceformats links every foreign trace format into a program:
// importing it for its side effect registers trace/dumpi,
// trace/liballprof, trace/tit, trace/chakra and trace/otf2 with the trace
// package's registry (trace.RegisterFormat), as a program that decodes
// every image format imports image/png, image/gif and image/jpeg.
//
// Use it where all formats must be known, in one place:
//
//	import _ "github.com/gopsim/gopsim/internal/traceformats"
//
//	f, ok := trace.DetectFormat("run.meta") // f.Name == "dumpi"
//	if ok {
//		t, err := f.Open("run.meta", trace.OpenOptions{})
//		...
//	}
//
// gopsim's command line (internal/cli) does.
package traceformats

import (
	_ "github.com/gopsim/gopsim/trace/chakra"
	_ "github.com/gopsim/gopsim/trace/dumpi"
	_ "github.com/gopsim/gopsim/trace/liballprof"
	_ "github.com/gopsim/gopsim/trace/otf2"
	_ "github.com/gopsim/gopsim/trace/tit"
)
