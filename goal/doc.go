// Package goal is gopsim's schedule model: per rank a list of send, recv
// and calc operations with requires and irequires dependencies, read and
// written in LogGOPSim's GOAL text form and in gopsim's compressed binary
// form.
//
// In memory a Schedule is flat: one slice of 24-byte Op values for all
// ranks, int32 offsets per rank, and the dependency edges in compressed
// sparse row form (successors grouped by predecessor). Labels are kept only
// where they differ from Schedgen's canonical l1, l2, ... so a schedule
// costs about 30 bytes per op.
//
// Readers hand out one RankBlock at a time (TextReader.Next, Reader.Next),
// so a schedule can be converted or streamed without holding it whole;
// ReadText, ReadBinary and ReadFile build a whole Schedule. ReadBinaryBlocks
// and ReadTextBlocks decode a whole file on all CPUs and hand its blocks
// out with their final indexes, so that callers (ReadBinary, ReadTextAt,
// sim.ReadProgram) allocate the result once, at its size; a text is cut at
// the lines that open a rank block, and read again on one goroutine
// whenever the pieces do not join up, so its blocks and errors are always
// those of a TextReader.
//
// Example: read a text schedule, write it in the binary form.
//
//	s, format, err := goal.ReadFile("bcast.goal") // text or binary, sniffed
//	if err != nil {
//		return err // e.g. "bcast.goal:12:5: peer rank 9 outside 0..7 (num_ranks 8)"
//	}
//	err = goal.WriteFile("bcast.bin", s, goal.FormatBinary) // temp file + rename
//
// Every reader validates what it returns (peers in range, labels defined
// before use, no duplicate labels, no dependency cycles, integers within
// their fields) and reports the file, the line and column (text) or the
// byte offset (binary) of the first problem. A text reader given Limits
// (TextReader.SetLimits, ReadTextLimits, ReadTextAtLimits, ReadTextBlocks,
// NewTextStream) also refuses an op larger than its consumer takes, as a
// *LimitError at the op's line: gopsim sim's engine runs messages of up to
// 2 TiB. ReadLimits and ReadAtLimits bound either form, a binary schedule
// (which has no lines) by its rank, op and label after its name
// (Limits.Check).
package goal
