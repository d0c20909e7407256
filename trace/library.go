package trace

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/collective"
)

// LibrarySource is a Source that knows the MPI library it was traced
// with: the first line of MPI_Get_library_version ("Open MPI v4.1.4,
// package: ...", "MPICH Version: 4.0.2"), or "" when it does not. A
// trace directory (*Dir) is one (the header's Library, version 1 on);
// a liballprof trace names the library given as liballprof.Options.MPI.
type LibrarySource interface {
	Source
	Library() string
}

// Library is the MPI library of rank 0's header ("" for an empty trace).
func (d *Dir) Library() string {
	if len(d.Headers) == 0 {
		return ""
	}
	return d.Headers[0].Library
}

// LibraryOf returns the MPI library d was traced with, or "" when d does
// not say (DUMPI, OTF2, TIT and Chakra traces, or a tracer that recorded
// none).
func LibraryOf(d Source) string {
	if l, ok := d.(LibrarySource); ok {
		return l.Library()
	}
	return ""
}

// LibraryRules tells which collective selection rules the MPI library
// named by lib (a MPI_Get_library_version line) follows: Open MPI's for
// Open MPI, MPICH's for MPICH and the libraries built on it (MVAPICH,
// Intel MPI, Cray MPICH); ok is false when lib is empty or unknown.
func LibraryRules(lib string) (r collective.Rules, ok bool) {
	l := strings.ToLower(lib)
	switch {
	case strings.Contains(l, "open mpi"):
		return collective.OpenMPI, true
	case strings.Contains(l, "mpich"), strings.Contains(l, "mvapich"), strings.Contains(l, "intel(r) mpi"):
		return collective.MPICH, true
	}
	return 0, false
}

// ResolveCollSelect resolves ConvertOptions.CollSelect for d as Convert
// does: the rules, and a note when auto found no known library.
func ResolveCollSelect(d Source, opt *ConvertOptions) (collective.Rules, string, error) {
	switch opt.CollSelect {
	case "", "auto":
	default:
		r, err := collective.ParseRules(opt.CollSelect)
		if err != nil {
			return 0, "", fmt.Errorf("trace: --coll-select %q: expected openmpi, mpich or auto", opt.CollSelect)
		}
		return r, "", nil
	}
	lib := opt.Library
	if lib == "" {
		lib = LibraryOf(d)
	}
	if r, ok := LibraryRules(lib); ok {
		return r, "", nil
	}
	what := "the trace does not name its MPI library"
	if lib != "" {
		what = fmt.Sprintf("MPI library %q is neither Open MPI nor MPICH", lib)
	}
	return collective.MPICH, what + ": collectives follow MPICH's selection (--coll-select openmpi for Open MPI's)", nil
}
