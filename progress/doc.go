// Package progress draws a progress bar with rate and ETA for gopsim's
// long-running commands, on a terminal only.
//
// A Bar writes to its writer only when that writer is a terminal (or
// Options.Terminal says to treat it as one) and the user did not ask for
// quiet; otherwise every method is a no-op, so commands create one
// unconditionally and results on stdout or logs in a file stay clean:
//
//	bar := progress.New(os.Stderr, int64(numRanks), "ranks written", quiet)
//	for r := range numRanks {
//		writeRank(r)
//		bar.Add(1)
//	}
//	bar.Finish()
//
// Work that counts in a hot loop or on other goroutines bumps an atomic
// counter instead, and Poll copies it into the bar a few times a second:
//
//	var done atomic.Int64
//	stop := bar.Poll(done.Load, 0)
//	run(&done) // calls done.Add(1) per item
//	stop()     // a last update, then the bar is finished
//
// A Bar's methods may be called from several goroutines at once.
package progress
