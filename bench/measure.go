package bench

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Round is one PRTT round: N messages sent back to back, about Delay
// apart (the delay starts when the previous send returns), then one reply
// of the same size. The prober spins through the delay (Netgauge's way:
// the CPU stays busy and warm, as in a loop of sends), or, with Sleep,
// sleeps and leaves the CPU to the peer and the rest of the machine.
//
// An Exchange round (Delay 0, Sleep false) is N exchanges instead: both
// ends send a message of the size to each other and receive the other's
// at once (MPI_Sendrecv), N times in a row, and the result is the time of
// all N. A ring, a halo or an all-to-all step is such an exchange, and a
// model that reproduces round trips does not always reproduce it
// (docs/accuracy.md); only an Exchanger runs them.
type Round struct {
	N        int
	Delay    time.Duration
	Sleep    bool
	Exchange bool
}

// An Exchanger is a Prober that can run Exchange rounds, when Exchanges
// says so. Measure measures exchanges through every Prober that can.
type Exchanger interface {
	Prober
	Exchanges() bool
}

// canExchange reports whether p runs Exchange rounds.
func canExchange(p Prober) bool {
	x, ok := p.(Exchanger)
	return ok && x.Exchanges()
}

// checkRounds returns an error about the first round in rounds that no
// prober runs, or an exchange round when exchange is false.
func checkRounds(rounds []Round, exchange bool) error {
	for _, r := range rounds {
		switch {
		case r.N < 1 || r.N > MaxRoundMessages || r.Delay < 0 || r.Delay > maxDelayNs:
			return fmt.Errorf("bench: round of %d messages, delay %v", r.N, r.Delay)
		case r.Exchange && !exchange:
			return fmt.Errorf("bench: an exchange round, which this backend does not run")
		case r.Exchange && (r.Delay != 0 || r.Sleep):
			return fmt.Errorf("bench: an exchange round with a delay of %v (sleep %v): exchanges have none", r.Delay, r.Sleep)
		}
	}
	return nil
}

// Result is what a round measured: the round trip, and the mean of the
// delays actually spent between its messages (a sleep lasts longer than
// asked; 0 without delay).
type Result struct {
	PRTT  time.Duration
	Delay time.Duration
}

// A Relauncher is a Prober that can start afresh: Relaunch ends its
// session and starts a new one, with new processes at both ends, that
// must measure between the same places (Config.Launches).
type Relauncher interface {
	Prober
	Relaunch(ctx context.Context) error
}

// A Prober runs PRTT rounds against a peer (a backend: TCP, ...).
type Prober interface {
	// Rounds runs rounds in order, every message of sizeBytes bytes, and
	// stores what each measured in res (len(res) == len(rounds)).
	Rounds(ctx context.Context, sizeBytes int64, rounds []Round, res []Result) error
}

// Config says what Measure measures. The zero value of every field is its
// documented default.
type Config struct {
	// Sizes are the message sizes in bytes (each 1..MaxSizeBytes); nil
	// means DefaultSizes.
	Sizes []int64
	// Reps is the number of timed rounds of each kind (PRTT(1,0,s),
	// PRTT(n,0,s), PRTT(n,d,s), PRTT(2,d,s)) per size; 0 means 200.
	Reps int
	// Warmup is the number of untimed rounds of each kind per size before
	// the timed ones; 0 means 20.
	Warmup int
	// N is n, the messages per round of PRTT(n,0,s) and PRTT(n,d,s), at
	// least 2; 0 means 8.
	N int
	// Delay is d of PRTT(n,d,s). It must exceed g+(s-1)G-o for o to be
	// measurable; 0 means, per size, the median warm-up PRTT(1,0,s), which
	// does (Netgauge's choice). The table records the delay actually spent
	// (a sleep overshoots), which is what the fit needs.
	Delay time.Duration
	// Sleep makes the prober sleep through the delay instead of spinning.
	// Spinning is Netgauge's method and measures o without wake-up costs,
	// but it takes a CPU for the whole delay; sleep where CPUs are scarce
	// (both ends on a small shared machine). A sleeping prober's o includes
	// what a send costs after idling (caches, CPU idle states, a virtual
	// CPU's wake-up), often several µs.
	Sleep bool
	// Passes spreads each size's timed repetitions over this many sweeps
	// through all the sizes (each with its own warm-up), so that a
	// disturbance lasting seconds (another job on a shared machine) hits
	// one pass of a size rather than all its repetitions, and the fit's
	// low quantile finds the undisturbed ones; 0 means 1.
	Passes int
	// Launches spreads the passes over this many launches of the prober,
	// each a fresh pair of processes (Relauncher): an MPI library places
	// its ranks, sets up its connections and finds the machine in a
	// state of its own at every launch, and a table from one launch
	// describes that launch only; what an application sees is what most
	// launches do. Pass i runs in launch i*Launches/Passes. 0 means 1;
	// more than 1 needs a Prober that is a Relauncher.
	Launches int
	// Progress, if not nil, is called after each size of each pass with
	// the number of sizes done and the total (sizes times passes).
	Progress func(done, total int, sizeBytes int64)
}

// DefaultMPISizes are the message sizes of the mpi backend by default:
// powers of 2 and their midpoints (1.5 times) from 1 byte to 4 MiB, and
// quarter steps from 1 KiB to 8 KiB, dense enough to see every protocol an
// MPI library switches between (Open MPI's shared memory: inline sends up
// to 256 bytes, its fast boxes, eager copies up to 4 KiB, single copy
// above; MPICH's eager limit) and the caches' sizes, with the three sizes
// a range needs between the switches.
var DefaultMPISizes = func() []int64 {
	var s []int64
	for p := int64(1); p <= 4<<20; p *= 2 {
		s = append(s, p)
		if p >= 1024 && p < 8192 {
			s = append(s, p+p/4)
		}
		if m := p + p/2; p >= 2 && m < 4<<20 {
			s = append(s, m)
		}
		if p >= 1024 && p < 8192 {
			s = append(s, p+3*p/4)
		}
	}
	return s
}()

// DefaultSizes are the message sizes Measure uses without Config.Sizes:
// from 1 byte to 128 KiB, with the classic protocol limits (8 KiB, 12 KiB,
// 16 KiB, 64 KiB) and their successors, so that a change there is located
// to the byte.
var DefaultSizes = []int64{1, 256, 1024, 2048, 4096, 6144, 8192, 8193, 12288, 12289, 16384, 16385,
	24576, 32768, 49152, 65536, 65537, 98304, 131072}

// WithDefaults returns c with its defaults filled in, or the error that
// Measure would report about it.
func (c Config) WithDefaults() (Config, error) {
	if c.Sizes == nil {
		c.Sizes = DefaultSizes
	}
	if len(c.Sizes) == 0 {
		return c, fmt.Errorf("bench: no message sizes")
	}
	for _, s := range c.Sizes {
		if s < 1 || s > MaxSizeBytes {
			return c, fmt.Errorf("bench: message size %d bytes outside 1..%d", s, MaxSizeBytes)
		}
	}
	if c.Reps == 0 {
		c.Reps = 200
	}
	if c.Warmup == 0 {
		c.Warmup = 20
	}
	if c.N == 0 {
		c.N = 8
	}
	if c.Passes == 0 {
		c.Passes = 1
	}
	if c.Launches == 0 {
		c.Launches = 1
	}
	switch {
	case c.Passes < 1 || c.Passes > c.Reps:
		return c, fmt.Errorf("bench: %d passes, want 1..%d (the repetitions)", c.Passes, c.Reps)
	case c.Launches < 1 || c.Launches > c.Passes:
		return c, fmt.Errorf("bench: %d launches, want 1..%d (the passes)", c.Launches, c.Passes)
	case c.Reps < 1:
		return c, fmt.Errorf("bench: %d repetitions, want at least 1", c.Reps)
	case c.Warmup < 1:
		return c, fmt.Errorf("bench: %d warm-up rounds, want at least 1", c.Warmup)
	case c.N < 2 || c.N > MaxRoundMessages:
		return c, fmt.Errorf("bench: n=%d messages per round outside 2..%d", c.N, MaxRoundMessages)
	case c.Delay < 0 || c.Delay > maxDelayNs:
		return c, fmt.Errorf("bench: delay %v outside 0..%v", c.Delay, time.Duration(maxDelayNs))
	}
	return c, nil
}

// Measure measures PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) and, for n > 2,
// PRTT(2,d,s) for every size of cfg through p, and, when p is an
// Exchanger that runs them, X(1,s) and X(n,s), exchange rounds of one and
// n exchanges, and returns the raw table (timed rounds only).
//
// Per size it runs Warmup rounds of PRTT(1,0,s) (their median is d when
// cfg.Delay is 0), then Warmup untimed and Reps timed repetitions of the
// rounds interleaved, so that drift over time affects them alike and
// cancels in their differences. With cfg.Passes > 1 it sweeps the sizes
// that many times, each size's timed repetitions shared among the passes,
// and with cfg.Launches > 1 it relaunches p between the passes of
// different launches.
//
// PRTT(2,d,s) is gopsim's addition to Netgauge's method. The last message
// of PRTT(n,d,s) follows an idle period, and on most machines (virtual
// ones above all) a message after idling costs more than one in a tight
// loop, at both ends; with two values of n that extra cost is the same in
// both and cancels in o = (PRTT(n,d,s) - PRTT(2,d,s))/(n-2) - d, whereas
// (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d adds it to o, divided by n-1.
func Measure(ctx context.Context, p Prober, cfg Config) (Table, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	var t Table
	m := measurer{p: p, cfg: cfg}
	rl, _ := p.(Relauncher)
	if cfg.Launches > 1 && rl == nil {
		return nil, fmt.Errorf("bench: %d launches: this backend cannot start afresh (%T)", cfg.Launches, p)
	}
	done, total := 0, len(cfg.Sizes)*cfg.Passes
	for pass := range cfg.Passes {
		if pass > 0 && launchOf(pass, cfg) != launchOf(pass-1, cfg) {
			if err := rl.Relaunch(ctx); err != nil {
				return t, fmt.Errorf("launch %d of %d: %w", launchOf(pass, cfg)+1, cfg.Launches, err)
			}
		}
		reps := cfg.Reps / cfg.Passes
		if pass < cfg.Reps%cfg.Passes {
			reps++
		}
		for _, s := range cfg.Sizes {
			if t, err = m.size(ctx, t, s, reps); err != nil {
				if cfg.Passes > 1 {
					err = fmt.Errorf("pass %d of %d: %w", pass+1, cfg.Passes, err)
				}
				return t, err
			}
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total, s)
			}
		}
	}
	return t, nil
}

// launchOf returns the launch (0-based) that runs pass p.
func launchOf(p int, cfg Config) int { return p * cfg.Launches / cfg.Passes }

// measurer runs Measure's rounds, reusing its buffers.
type measurer struct {
	p      Prober
	cfg    Config
	rounds []Round
	res    []Result
}

// size measures one size: Warmup rounds of PRTT(1,0,s) (their median is d
// when cfg.Delay is 0), then Warmup untimed and reps timed repetitions of
// the rounds interleaved; the timed ones are appended to t. Each
// repetition starts with a round trip that is not recorded: the first
// round trip after the other kinds of round is not one of a run of round
// trips. On this project's VM, with Open MPI's shared memory at 4,096
// bytes, it took 5.3 us (median) where the three after it took 5.7 to
// 6.0 us, as the pingpong example's 5,000 in a row did (6.0 to 6.5 us):
// PRTT(1,0,s) is now the second, and a ping-pong program is no longer
// predicted 5 to 10 % too fast (docs/accuracy.md).
func (m *measurer) size(ctx context.Context, t Table, s int64, reps int) (Table, error) {
	cfg := m.cfg
	m.rounds = m.rounds[:0]
	for range cfg.Warmup {
		m.rounds = append(m.rounds, Round{N: 1})
	}
	m.res = slices.Grow(m.res[:0], len(m.rounds))[:len(m.rounds)]
	if err := m.p.Rounds(ctx, s, m.rounds, m.res); err != nil {
		return t, fmt.Errorf("size %d bytes: warm-up: %w", s, err)
	}
	d := cfg.Delay
	if d == 0 {
		xs := make([]float64, len(m.res))
		for i, x := range m.res {
			xs[i] = float64(x.PRTT)
		}
		d = max(time.Duration(Summarize(xs).Median), 1)
	}
	// The first round of each cycle settles (settleRound): untimed.
	kinds := []Round{{N: 1}, {N: 1}, {N: cfg.N}, {N: cfg.N, Delay: d, Sleep: cfg.Sleep}}
	if cfg.N > 2 {
		kinds = append(kinds, Round{N: 2, Delay: d, Sleep: cfg.Sleep})
	}
	if canExchange(m.p) {
		kinds = append(kinds, Round{N: 1, Exchange: true}, Round{N: cfg.N, Exchange: true})
	}
	m.rounds = m.rounds[:0]
	for range cfg.Warmup + reps {
		m.rounds = append(m.rounds, kinds...)
	}
	m.res = slices.Grow(m.res[:0], len(m.rounds))[:len(m.rounds)]
	if err := m.p.Rounds(ctx, s, m.rounds, m.res); err != nil {
		return t, fmt.Errorf("size %d bytes: %w", s, err)
	}
	skip := len(kinds) * cfg.Warmup
	for j, r := range m.rounds[skip:] {
		if j%len(kinds) == 0 {
			continue // the settling round
		}
		x := m.res[skip+j]
		sm := Sample{N: r.N, SizeBytes: s, PRTTNs: float64(max(x.PRTT.Nanoseconds(), 1)), Exchange: r.Exchange}
		if r.Delay > 0 {
			sm.DelayNs = float64(max(x.Delay.Nanoseconds(), 1))
		}
		t = append(t, sm)
	}
	return t, nil
}
