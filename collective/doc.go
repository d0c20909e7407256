// Package collective builds the schedules of MPI collective operations, one
// rank at a time, with the algorithms MPI libraries run.
//
// An Algorithm (Lookup by operation and name; Select for MPICH's default
// choice, SelectOpenMPI for Open MPI's, or Rules.Choose for either) emits the ops that one member of a communicator runs for one call
// into a goal.Builder. The call is described by a Spec: the communicator
// (its members as world ranks, so sub-communicators work), the root, the
// sizes, the tag, CPU and NIC, a pipeline segment and an optional reduction
// cost in ns per byte that becomes calc ops. Every algorithm works for any
// number of ranks; non-powers of two are handled as MPICH does (extra ranks
// fold into neighbours first).
//
// Emit takes the ops the call must start after and returns the ops it ends
// with, so a trace converter can chain calls inside a rank's schedule (its
// errors: a reduction cost that makes a calc longer than goal.MaxCalc, which
// MaxCombined rules out for every member at once when the call's whole
// vector fits, and more ops than Spec.MaxOps allows the builder,
// ErrTooManyOps):
//
//	alg, _ := collective.Select(collective.Allreduce, &spec)
//	var b goal.Builder
//	b.Reset(int32(worldRank))
//	ends, err := alg.Emit(&b, commRank, &spec, after, nil)
//
// Within a call, most algorithms are sequences of rounds (a blocking
// MPI_Sendrecv, a step of a tree): every op of a round requires every op of
// the previous round. All messages of a call carry Spec.Tag and no
// wildcards, so calls on different communicators or tags never mix.
//
// The tests check every algorithm on communicators of 1 to 100 ranks, on
// the world and on shuffled sub-communicators: every send has exactly one
// receive of the same size, information flows as the operation requires
// (after an allreduce every rank has heard from every rank, after a scan
// rank i from ranks 0..i), the messages and bytes per rank equal the
// algorithm's formula, and contention-free cases take the LogGP time worked
// out by hand.
package collective
