// Package noise injects operating-system noise and stragglers into a
// simulation: measured noise traces in LogGOPSim's format, synthetic
// periodic and random detours, and ranks that run slower by a factor.
//
// A Model answers one question for the engine: CPU work of length n
// starting at time t on rank r, how much longer does it take? For a
// detour source, the answer is the rest of a detour already running at t
// plus every detour that starts in [t, t+n) (the work waits while they
// run); for a straggler, (Factor-1)·n. Answers depend only on the Config,
// the rank and the interval, never on the order of questions, so a
// simulation with noise is as deterministic as one without: the same seed
// gives the same result.
//
//	tr, err := noise.ReadTraceFile("noise.txt") // "start<TAB>duration" in ns
//	m, err := noise.New(noise.Config{Seed: 42, Trace: tr}, numRanks)
//	extra := m.Charge(rank, start, length) // ns added to this CPU charge
//
// Each rank reads the trace from its own offset, drawn from the seed, so
// ranks are not hit at the same moments; Cosched gives every rank the same
// offset (co-scheduled noise). Measure records this machine's noise with a
// selfish-detour loop.
//
// A setting can be given and still do nothing: a period without a detour
// length, a straggler factor without stragglers, a seed with nothing
// random. Config.Used says which settings take effect and Unused reports
// the first setting a user gave in vain, with what it needs, in the user's
// words (a flag, a sweep key):
//
//	err := noise.Unused(given, cfg.Used(), cfg.Present(), flagName)
//	// "--noise-period needs --noise-period-length (each detour's length, ns): ..."
package noise
