// Package placement puts several jobs' GOAL schedules onto one machine as
// one schedule, so that the interference between jobs can be studied.
//
// Place decides where each job's ranks go: Packed gives job 0 the machine
// ranks 0..P0-1, job 1 the next P1, and so on; RoundRobin deals the ranks
// out one at a time (job 0's rank 0, job 1's rank 0, ..., job 0's rank 1,
// ...; a job that has run out of ranks is skipped); Random is a seeded
// permutation of the packed slots. Merge then writes the machine's
// schedule: each machine rank is its job rank's block with the peers
// remapped through the placement, tags, sizes, CPUs, NICs, dependencies
// and labels kept. Jobs never exchange messages with each other.
//
// Example: two jobs, interleaved.
//
//	a, _, err := goal.ReadFile("a.goal")
//	...
//	b, _, err := goal.ReadFile("b.bin")
//	...
//	m, err := placement.Place([]int{a.NumRanks, b.NumRanks}, placement.RoundRobin, 0)
//	if err != nil {
//		return err
//	}
//	out := goal.NewSchedule(m.NumRanks())
//	err = placement.Merge([]*goal.Schedule{a, b}, m, out.AppendRank)
//
// The CPUs and NICs per rank of the merged schedule are the largest of the
// inputs' (MergedHeader), so every job's ops keep their CPU and NIC.
package placement
