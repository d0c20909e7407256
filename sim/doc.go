// Package sim is gopsim's discrete-event engine: it simulates a GOAL
// schedule under the LogGOPS model and gives every rank's finishing time,
// exactly as LogGOPSim does on the schedules where LogGOPSim is well
// defined.
//
// # Use
//
//	s, _, err := goal.ReadFile("allreduce.goal")
//	if err != nil { ... }
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
//	if err != nil { ... } // a *DeadlockError lists the stuck ops
//	fmt.Println(res.MaxTime, res.PerRank)
//
// # Cost rules (docs/model.md has them in full)
//
// Per rank r: cpu[r][c], the time CPU c is free; sendnic[r][n] and
// recvnic[r][n], the times NIC n may send and receive again. For a message
// of s bytes, b = max(s-1, 0).
//
//   - calc T on (r,c) starting at t: cpu = t+T; it completes then.
//   - send starting at t on (r,c,n): cpu = t+o+b*O, sendnic = t+g+b*G; the
//     message arrives at t+o+L. Eager (s <= S) sends complete at t+o+b*O;
//     rendezvous sends when matched (not before t+o+b*O), and the match
//     raises the sender's cpu and sendnic to the match time.
//   - recv starting at t is posted at no cost; if a matching message is
//     already in the unexpected queue it completes at t.
//   - an arrival at t on the receiver's (c,n) of the send waits until cpu
//     and recvnic are free, then cpu = t+o+max(b*O, b*G), recvnic =
//     t+g+b*G; it completes the first matching posted receive at the new
//     cpu time, or joins the unexpected queue.
//   - matching is FIFO; a source or tag of -1 on either side matches any.
//   - an op becomes ready when its requires predecessors have completed and
//     its irequires predecessors have started; it is queued at the latest of
//     that time and its resources' free time (gopsim's correction: LogGOPSim
//     used the free time alone). A rank's finishing time is max over its
//     CPUs of cpu[r][c].
//
// # Time unit
//
// Params hold L, o and g in ns and G and O in ns per byte, with decimals.
// Each is rounded once to a whole picosecond. When all are then whole ns
// the engine counts ns, LogGOPSim's unit; otherwise it counts ps. Either
// way it computes with integers only, and a Result's times are rounded
// once, on output, to the nearest ns (halves up); docs/model.md has the
// details. Times are bounded by MaxTime units: a cost or a finishing time
// beyond is a *TimeError naming the op, never a wrapped or clamped time.
// Op sizes are bounded as well, messages by MaxMessage and calcs by
// goal.MaxCalc: the text readers (ReadTextProgram and its variants) refuse
// a larger op as they read it, with a *goal.LimitError at its line; a
// schedule compiled or read in the binary form fails to Run with one that
// names the op's rank, index and label, and no position (the caller names
// the file), which Program.SizeError gives as soon as it is read. Limits
// gives these bounds to goal's readers (goal.ReadLimits).
//
// ReadParams reads parameter files strictly (exact keys, no duplicates,
// positions in errors), with units in string values ("1.5us",
// "12.5GB/s", "64KiB"); ParseDuration, ParsePerByte and ParseBytes are
// the unit parsers the command line shares.
//
// # Determinism
//
// Events are processed in (time, sequence number) order; an event gets its
// sequence number when it is first queued and keeps it when it is put back
// because a resource was busy (the engine parks such events in waiting
// lists rather than retrying each, in the same order: park.go). Ops
// released by one event are queued rank by rank in ascending order and,
// within a rank, sends, then receives, then calcs, each in release order;
// ops ready at time 0 likewise. Nothing
// depends on maps, goroutines, addresses or the wall clock, so the same
// schedule and parameters always give the same result, whatever
// GOMAXPROCS is, and both event queues (RadixQueue, HeapQueue) give
// identical results.
//
// Ranks are data, not goroutines: the state is a few flat slices indexed
// by rank or op (a Program: one 32-byte record per op, one 64-byte record
// per rank), and the event loop allocates nothing per event. A rank's
// matching queue is a short array scanned in order, or, beyond 64
// entries, hash tables keyed by rank, source and tag with per-rank lists
// for wildcard matches, so a linear all-to-all does not go quadratic.
//
// For large binary schedules, ReadProgram decodes the file straight into a
// Program on all CPUs, without the goal.Schedule that Run takes, and
// ReadTextProgram does the same for a GOAL text; the results are the same
// either way (docs/performance.md). Schedules larger than memory are
// streamed from a spill file (ReadProgramStream, ReadTextProgramStream):
// every model, noise, congestion network, breakdown and per-op record
// (Options.Record, kept in a file as ops finish) works as in memory, with
// the same results, and Program.Share lets several runs use one spill
// file at once.
package sim
