package bench

import (
	"context"
	"fmt"
	"slices"
)

// BurstConfig says what MeasureBurst measures. The zero value of every
// field is its documented default.
type BurstConfig struct {
	// SizeBytes is the message size; 0 means 8 (LogfP is about small
	// messages).
	SizeBytes int64
	// MaxP is the longest burst; 0 means 32.
	MaxP int
	// Reps is the number of timed rounds per P; 0 means 100. Warmup the
	// untimed ones before; 0 means 10.
	Reps, Warmup int
}

func (c BurstConfig) withDefaults() (BurstConfig, error) {
	if c.SizeBytes == 0 {
		c.SizeBytes = 8
	}
	if c.MaxP == 0 {
		c.MaxP = 32
	}
	if c.Reps == 0 {
		c.Reps = 100
	}
	if c.Warmup == 0 {
		c.Warmup = 10
	}
	switch {
	case c.SizeBytes < 1 || c.SizeBytes > MaxSizeBytes:
		return c, fmt.Errorf("bench: burst message size %d bytes outside 1..%d", c.SizeBytes, MaxSizeBytes)
	case c.MaxP < 3 || c.MaxP > MaxRoundMessages:
		return c, fmt.Errorf("bench: longest burst %d outside 3..%d", c.MaxP, MaxRoundMessages)
	case c.Reps < 1 || c.Warmup < 1:
		return c, fmt.Errorf("bench: %d repetitions and %d warm-up rounds, want at least 1 each", c.Reps, c.Warmup)
	}
	return c, nil
}

// MeasureBurst measures LogfP's burst round trip through p: P messages of
// cfg.SizeBytes sent back to back and one reply, RTT(P) = PRTT(P,0,s),
// for P = 1 .. cfg.MaxP, the values of P interleaved so that drift
// cancels. The rows are those of a PRTT table (WriteTableFile writes
// them; FitModels reads f from them). It is the P:1 half of Hoefler et
// al.'s 1:P-P:1 benchmark, which needs only two hosts; a NIC that takes
// f messages at once shows as a kink at P = f.
func MeasureBurst(ctx context.Context, p Prober, cfg BurstConfig) (Table, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var rounds []Round
	for range cfg.Warmup + cfg.Reps {
		for n := 1; n <= cfg.MaxP; n++ {
			rounds = append(rounds, Round{N: n})
		}
	}
	res := make([]Result, len(rounds))
	if err := p.Rounds(ctx, cfg.SizeBytes, rounds, res); err != nil {
		return nil, fmt.Errorf("burst of %d-byte messages: %w", cfg.SizeBytes, err)
	}
	skip := cfg.Warmup * cfg.MaxP
	t := make(Table, 0, len(rounds)-skip)
	for i, r := range rounds[skip:] {
		t = append(t, Sample{N: r.N, SizeBytes: cfg.SizeBytes, PRTTNs: float64(max(res[skip+i].PRTT.Nanoseconds(), 1))})
	}
	slices.SortStableFunc(t, func(a, b Sample) int { return a.N - b.N })
	return t, nil
}
