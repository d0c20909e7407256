package trace

// The registry of foreign trace formats. Each format's package (trace/dumpi,
// trace/liballprof, trace/tit, trace/chakra, trace/otf2) registers itself in
// its init function, as image/png does with image.RegisterFormat; a program
// that must read every format imports them all for their side effect (the
// gopsim command does, through internal/traceformats). This package never
// imports a format package.

import (
	"fmt"
	"slices"
	"sync"
)

// A Format is a foreign trace format: how to recognise its traces and how
// to open them as a Source.
type Format struct {
	// Name is the format's name, as `gopsim convert --from` takes it:
	// "dumpi", "liballprof", "tit", "chakra", "otf2".
	Name string
	// Detect reports whether path (a file, a directory, or for formats
	// that have them a prefix of rank files) holds a trace of the format.
	// It reads at most the start of a few files.
	Detect func(path string) bool
	// Open opens the trace at path with the options that concern the
	// format; it ignores the others.
	Open func(path string, opt OpenOptions) (*Opened, error)
}

// OpenOptions are the options of the formats' Open functions. The zero
// value is each format's default.
type OpenOptions struct {
	// Unsupported is the policy for calls the converter cannot model: ""
	// (fail, listing them with their counts) or "calc" (their time counts
	// as computation). Formats without such calls (tit) ignore it.
	Unsupported string
	// TimeMult multiplies liballprof's µs into ns (0: 1000).
	TimeMult float64
	// MPI is the library a liballprof trace was taken with ("openmpi",
	// "mpich" or "": detected from the handle constants).
	MPI string
	// HostSpeed turns a TIT trace's flops into time, in flop/s (0:
	// tit.DefaultHostSpeed).
	HostSpeed float64
}

// Opened is a trace a Format opened, with what the format says about it.
type Opened struct {
	Source Source
	// Warnings list what was read with an assumption, one line each.
	Warnings []string
	// Note is a line for the log that says how the trace was read
	// ("tit: 4 ranks in one shared file, ..."), or "".
	Note string
}

var formats struct {
	sync.Mutex
	list []Format // sorted by name
}

// RegisterFormat registers a trace format; a format package calls it in
// its init function. It panics on a Format without a name, Detect or Open,
// and on a name registered twice: both are programming errors.
func RegisterFormat(f Format) {
	if f.Name == "" || f.Detect == nil || f.Open == nil {
		panic(fmt.Sprintf("trace: RegisterFormat(%q): a format needs a name, Detect and Open", f.Name))
	}
	formats.Lock()
	defer formats.Unlock()
	i, found := slices.BinarySearchFunc(formats.list, f.Name, func(g Format, name string) int {
		switch {
		case g.Name < name:
			return -1
		case g.Name > name:
			return 1
		}
		return 0
	})
	if found {
		panic(fmt.Sprintf("trace: RegisterFormat: format %q registered twice", f.Name))
	}
	formats.list = slices.Insert(formats.list, i, f)
}

// Formats returns the registered formats, sorted by name.
func Formats() []Format {
	formats.Lock()
	defer formats.Unlock()
	return slices.Clone(formats.list)
}

// LookupFormat returns the registered format called name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// DetectFormat returns the first registered format, by name, whose Detect
// takes path. The formats' Detect functions look for their own magic
// numbers and file names, so at most one takes a path.
func DetectFormat(path string) (Format, bool) {
	for _, f := range Formats() {
		if f.Detect(path) {
			return f, true
		}
	}
	return Format{}, false
}
