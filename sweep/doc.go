// Package sweep runs parameter sweeps: one schedule simulated at every
// point of a grid or list of LogGOPS parameters and schedule
// transformations, in parallel, into a CSV that can be resumed, sharded
// across a cluster, merged and plotted.
//
// # The spec
//
// A spec (TOML or JSON, told apart by the extension) names the input
// schedule and the output CSV, relative to the spec's directory, the base
// parameters every point starts from, and the points: a grid (the
// cartesian product of its dimensions) and/or a list.
//
//	input = "allreduce_recdoub_8.goal"  # GOAL text or binary
//	output = "latency.csv"              # default: the spec's name with .csv
//	[params]                            # a sim params file's keys, or params = "FILE.json"
//	L_ns = 2500
//	[grid]
//	L_ns = { from = 250, to = 16000, factor = 2 }  # geometric: 250, 500, ..., 16000
//	o_ns = { from = 500, to = 2500, step = 1000 }  # arithmetic: 500, 1500, 2500
//	S_bytes = [4096, 65535]                        # a list
//	[[points]]                                     # after the grid's points
//	L_ns = 100
//	compute_scale = 0.5
//
// The dimensions (Dims) are compute_scale (every calc op's duration times
// the factor, rounded to the nearest ns, on a copy of the schedule),
// L_ns, o_ns, g_ns, G_ns_per_byte, O_ns_per_byte and S_bytes. Size ranges
// in the base parameters stay as they are: a swept L_ns applies to the
// message sizes outside them. The noise dimensions (package noise) are
// noise_period_ns and noise_period_length_ns (periodic detours),
// noise_interval_ns and noise_length_ns (random detours' means),
// straggler_fraction and straggler_factor, and noise_seed; the [noise]
// table gives what is not a number (a measured trace, cosched, dist =
// "exp" or "pareto", alpha) and base values:
//
//	[noise]
//	trace = "noise.txt"      # LogGOPSim's format, relative to the spec
//	cosched = true
//	[grid]
//	noise_seed = { from = 1, to = 8, step = 1 }
//
// A noise key or dimension that no point of the spec gives an effect
// (straggler_factor without straggler_fraction, noise_period_ns without
// noise_period_length_ns, noise_seed with nothing random, dist without
// noise_interval_ns) is a *SpecError at the key: the rule gopsim sim
// applies to its noise flags (noise.Unused).
//
// extrapolate_factor K makes the schedule's P ranks K·P (package
// extrapolation, as gopsim extrapolate does with a schedule: copies keep
// their messages, collectives stay per copy) before the compute is
// scaled; the top-level extrapolate_grid = "16x16" names the input's
// process grid, which then grows along its first dimension so that a
// halo stays one halo.
//
// Values of the dimensions in ns, ns per byte and bytes may have decimals
// and may be strings with a unit, converted to the dimension's unit as
// the command line's flags are (sim.ParseDuration, sim.ParsePerByte,
// sim.ParseBytes): L_ns = "1.5us", G_ns_per_byte = ["100Gb/s", 0.5],
// o_ns = { from = "250ns", to = "1us", step = "250ns" }, S_bytes = "64KiB".
// A factor stays a plain number.
//
// Each worker compiles the schedule once (sim.Compile) and runs every
// point that shares its transformation on the compiled program. With
// Options.Stream (gopsim sweep --stream on) the schedule is instead
// spilled once per transformation (sim.ReadProgramStream; straight from
// the input file when the spec transforms nothing, so that it is never
// held in memory) and every worker runs its points on a share of it
// (sim.Program.Share), keeping only each simulation's active window in
// memory; the CSV is the same, byte for byte.
//
// Points are numbered from 0, the grid's first, as nested loops over its
// dimensions in Dims order with the last innermost, then the listed ones.
// The number is the point's id in the CSV, in shards and in resumes; a
// spec whose grid changes renumbers its points, and a resume then finds
// rows that disagree with the spec and stops.
//
// Every mistake in a spec's content is a *SpecError with its file, line and
// column.
//
// # Running
//
//	spec, err := sweep.ReadSpec("latency.toml")
//	if err != nil { ... }
//	sum, err := sweep.Run(ctx, spec, sweep.Options{Sort: true})
//
// Run reads the schedule once and shares it between workers, each running
// one point at a time. Each finished point appends one row
// (here the first of examples/sweep_latency.toml):
//
//	point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns
//	0,1,1,250,500,1000,1,0,65535,0,0,0,0,0,1,0,122182,0,144,0
//
// Rows depend only on their point, never on timing (wall time is reported
// apart, to the caller): the same spec gives the same set of rows, and
// with Options.Sort (or after Merge) the same bytes. OUT.csv.meta.json
// (MetaPath) echoes the spec, the input with its SHA-256, the base
// parameters and the shard.
//
// # Resuming and crashes
//
// Running again skips the points already in the CSV, after checking that
// each row's parameters are the spec's (ErrMismatch names the line
// otherwise) and that the meta file agrees on the input and the base
// parameters. Every row goes out in one write of the whole line to a file
// opened with O_APPEND, fsynced every second and at the end, so a killed
// run loses no row it wrote; a final line without its newline (a crash in
// the middle of a write, or of the disk's) is dropped with a warning.
//
// A run holds OUT.csv.lock (LockPath, an exclusive flock) while it reads
// and appends, and Merge while it replaces OUT.csv: a second run into the
// same CSV stops at once with an error naming the holder's pid and
// command line, instead of simulating every point again. The output must
// be a regular file (or absent), since it is read back to resume, in a
// directory that exists: Run makes none, as no gopsim command does.
//
// # Shards
//
// Shard{Index: I, Count: N} runs the points whose id modulo N is I, so
// that every shard gets a share of each grid dimension; its default
// output is OUT-shard-I-of-N.csv. Merge joins shard files into OUT.csv
// sorted by point and fails on a missing point (ErrIncomplete) or one
// given twice (ErrDuplicate). examples/slurm/sweep.sbatch does this with
// a Slurm job array.
//
// # Plots
//
// Plot draws a result column (max_time_ns by default) against a swept
// parameter, one line per value of another, as PNG, SVG or PDF.
package sweep
