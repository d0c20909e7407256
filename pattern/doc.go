// Package pattern generates whole GOAL schedules for `gopsim gen`: the
// patterns of LogGOPSim's Schedgen (identical schedules, op for op), MPI
// collectives over all ranks by any algorithm of package collective, and
// application skeletons (halo exchanges, permutation traffic, incast and
// outcast).
//
// New prepares a Generator from a pattern name and Params; Write produces
// its ranks in order and hands each block to a writer, so a schedule of a
// million ranks streams into the binary form in bounded memory:
//
//	g, err := pattern.New("allreduce_recdoub", pattern.Params{Ranks: 1 << 20, Size: 1 << 20})
//	w, err := goal.NewWriter(f, goal.Header{NumRanks: g.NumRanks(), NumCPUs: 1, NumNICs: 1})
//	err = pattern.Write(g, w.WriteRank)
//	err = w.Close()
//
// Random patterns are reproducible: random_bisect draws from C++'s
// std::mt19937 and linear_alltoallv from glibc's rand(), both reimplemented
// bit for bit, so a given --seed gives the schedule Schedgen would write
// with that seed; gopsim's own random patterns use math/rand/v2's PCG.
package pattern
