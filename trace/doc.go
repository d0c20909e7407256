// Package trace reads the traces of MPI applications that gopsim's tracer
// writes: one file per rank, each a stream of records of the MPI calls the
// rank made, with their times, peers as world ranks, tags, sizes,
// communicators and requests.
//
// The tracer is a PMPI library in C (trace/pmpi; `make tracer` builds
// bin/libgopsim-pmpi.so), preloaded into the application:
//
//	gopsim trace -o run1 -- mpirun -np 4 ./app
//
// leaves run1/rank-000000.gpt through rank-000003.gpt. The format is
// specified at the top of reader.go; Writer writes it too, for tests and
// synthetic traces.
//
// A Reader streams one rank's records: Next fills a Call, whose Func says
// which MPI function it was and Func.Class which fields it has. Peers are
// world ranks, roots are ranks of the call's communicator, sizes are bytes
// with the meaning gopsim's collective package gives Spec.Size. Requests
// are followed for the caller: each Completion of a Wait* or Test* names
// the call that created its request, with the peer, tag and size of its
// message (for a receive, those it got). The communicator table grows as
// the records define communicators, always before their first use; an id
// that is not Local names the same communicator in all its member ranks.
//
// Example: count the bytes rank 0 sent to each peer.
//
//	d, err := trace.OpenDir("run1") // checks one file per rank, same run
//	if err != nil {
//		return err // e.g. "trace: run1: 3 rank files for a world of 4 ranks (missing [2])"
//	}
//	r, err := d.Open(0)
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	sent := map[int32]int64{}
//	var c trace.Call
//	for {
//		err := r.Next(&c) // reuses c's slices
//		if err == io.EOF {
//			break // r.End() says how the rank's trace ended
//		}
//		if err != nil {
//			return err // e.g. "trace: run1/rank-000000.gpt: byte 4711: peer 9 is not a world rank (size 4)"
//		}
//		switch c.Func.Class() {
//		case trace.ClassSend, trace.ClassIsend, trace.ClassSendrecv:
//			sent[c.Peer] += c.Bytes
//		}
//	}
//
// Errors about malformed files are *FormatError values that give the file
// and the byte offset and unwrap to ErrFormat. A file without its end
// record (a rank that was killed) reads up to the cut and then fails with
// io.ErrUnexpectedEOF.
//
// What a converter to GOAL needs to know:
//
//   - Start and End are CLOCK_MONOTONIC ns around the PMPI call; the gap
//     between one call's End and the next one's Start is the rank's
//     computation, less the Duration of FuncFlush records in it (the
//     tracer writing its buffer). The tracer's own bookkeeping, tens of ns
//     per call, also falls in the gaps.
//   - Recv, Probe and Iprobe records carry the source, tag and size that
//     matched; Irecv records the posted ones, which may be AnySource and
//     AnyTag, and the Completion that ends it the matched ones.
//   - A run of failed Test* or Iprobe calls is one record with Polls > 1.
//   - Collectives carry Bytes as collective.Spec.Size, Root as a rank of
//     Comm, and Counts (and RecvCounts for Alltoallv) per rank of Comm;
//     Reader.Comm(c.Comm).Members maps ranks of Comm to world ranks.
//   - Request ids are unique per rank; Completion.Request is 0 for requests
//     the tracer does not follow (persistent requests), with Kind ReqUnknown.
//
// Other tools' traces are read by one package per format, each giving a
// Source that Convert takes like a Dir: trace/dumpi (sst-dumpi),
// trace/liballprof (LogGOPSim's Schedgen tracer), trace/tit (SimGrid's
// time-independent traces, read and written), trace/chakra (MLCommons
// Chakra execution traces) and trace/otf2 (Score-P's OTF2). Each
// registers itself with RegisterFormat in its init function, as image/png
// does with the image package: a program that imports a format package
// (internal/traceformats imports them all) finds it with DetectFormat and
// LookupFormat and opens its traces with Format.Open. This package holds
// what the importers share: the communicator resolution of traces that do
// not record members (ResolveComms, ResolveWildcards), the policy for calls
// the converter cannot model (CheckUnsupportedPolicy, UnsupportedCalls,
// UnsupportedReporter), the error of a malformed text line
// (TextFormatError), and opening a path as a file system (DiskFS). It
// never imports a format package.
package trace
