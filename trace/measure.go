package trace

import (
	"errors"
	"fmt"
	"io"
)

// ErrNoTimestamps is returned (wrapped) by Measure and MeasureRank for a
// rank whose records carry no times (all at 0), as a time-independent
// trace has.
var ErrNoTimestamps = errors.New("trace: no timestamps")

// RankTimes is what one rank's trace measured, in ns of the trace's clock
// (the tracer's CLOCK_MONOTONIC; for the other formats their time
// multiplied into ns, counted from the rank's first record).
//
// The measured time of the application is Measured: from the end of
// MPI_Init, where the simulation of the converted schedule starts, to the
// start of MPI_Finalize, where it ends. Whole adds MPI_Init and
// MPI_Finalize themselves. In between, InMPI is the time inside MPI calls
// and Tracer the time the tracer spent writing its buffer (FuncFlush);
// Outside, the rest, is the application's computation, which Convert
// turns into calc ops together with AsCompute, the calls it counts as
// computation.
type RankTimes struct {
	// InitStart and InitEnd are the start and end of MPI_Init (or
	// MPI_Init_thread), FinalizeStart and FinalizeEnd those of
	// MPI_Finalize. A format that records one end of a call only gives it
	// for both (liballprof writes MPI_Init's end and MPI_Finalize's
	// start). Without an MPI_Init record (NoInit), InitStart and InitEnd
	// are the rank's RankStream.Start, where the converter starts too.
	InitStart, InitEnd         int64
	FinalizeStart, FinalizeEnd int64
	// NoInit says the trace has no MPI_Init record for the rank.
	NoInit bool
	// InMPI is the time inside MPI calls between InitEnd and
	// FinalizeStart: the union of their [Start, End] intervals (calls
	// that overlap, from several threads, count once). The calls are those
	// the Source returns: the tracer does not record local queries such
	// as MPI_Comm_rank, the importers skip them too, and with
	// Unsupported "calc" they skip the calls they cannot model; the time
	// of those counts as outside MPI, as it does for Convert. A record of a run
	// of failed polls (Polls > 1) counts from its first call's start to
	// its last call's end, the application's work between the polls
	// included.
	InMPI int64
	// AsCompute is the part of InMPI in calls that Convert counts as
	// computation: Test* calls that completed nothing (a run of failed
	// polls, between which the application computed) and MPI_Type_commit
	// and MPI_Type_free (local work).
	AsCompute int64
	// Tracer is the time of FuncFlush records between InitEnd and
	// FinalizeStart, outside MPI calls.
	Tracer int64
	// Calls is the number of MPI call records between MPI_Init and
	// MPI_Finalize (a run of polls counts once).
	Calls int64
}

// Measured is the time from the end of MPI_Init to the start of
// MPI_Finalize.
func (t RankTimes) Measured() int64 { return t.FinalizeStart - t.InitEnd }

// Whole is the time from the start of MPI_Init to the end of
// MPI_Finalize.
func (t RankTimes) Whole() int64 { return t.FinalizeEnd - t.InitStart }

// Outside is the time between MPI_Init and MPI_Finalize spent outside
// MPI calls and outside the tracer: the application's computation.
func (t RankTimes) Outside() int64 { return t.Measured() - t.InMPI - t.Tracer }

// Measure reads every rank of src and returns their RankTimes, by rank.
// Errors name the rank's stream (its file) and what was wrong: a rank
// without an MPI_Finalize record, without timestamps (ErrNoTimestamps),
// or with times that run backwards.
func Measure(src Source) ([]RankTimes, error) {
	out := make([]RankTimes, src.NumRanks())
	for r := range out {
		rs, err := src.OpenRank(r)
		if err != nil {
			return nil, err
		}
		out[r], err = MeasureRank(rs)
		rs.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: rank %d: %w", rs.Name(), r, err)
		}
	}
	return out, nil
}

// rankMeasure is the state of MeasureRank: the calls seen so far.
type rankMeasure struct {
	t         RankTimes
	init, fin bool
	busyEnd   int64 // end of the MPI calls counted so far
	flushes   []Call
	anyTime   bool
	n         int64 // records read
}

// MeasureRank reads the rest of rs and returns its RankTimes. It reads
// records only; it does not close rs.
func MeasureRank(rs RankStream) (RankTimes, error) {
	m := rankMeasure{}
	m.t.InitStart, m.t.InitEnd = rs.Start(), rs.Start()
	m.busyEnd = m.t.InitEnd
	var c Call
	for {
		err := rs.Next(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			return RankTimes{}, err
		}
		m.n++
		if err := m.add(&c); err != nil {
			return RankTimes{}, fmt.Errorf("%s: %v at t=%d ns: %w", rs.Where(), c.Func, c.Start, err)
		}
	}
	return m.finish()
}

// add takes one record.
func (m *rankMeasure) add(c *Call) error {
	if c.Start != 0 || c.End != 0 {
		m.anyTime = true
	}
	if c.End < c.Start {
		return fmt.Errorf("ends %d ns before it starts", c.Start-c.End)
	}
	if m.fin {
		return nil // after MPI_Finalize: the tracer's own records
	}
	switch c.Func.Class() {
	case ClassInit:
		if m.init {
			return errors.New("a second MPI_Init")
		}
		// Calls before MPI_Init (MPI_Initialized, say) are outside the
		// measured time.
		m.init = true
		m.t.InitStart, m.t.InitEnd = c.Start, c.End
		m.t.Calls, m.t.InMPI, m.t.AsCompute, m.busyEnd = 0, 0, 0, c.End
		m.flushes = m.flushes[:0]
		return nil
	case ClassFinalize:
		m.fin = true
		m.t.FinalizeStart, m.t.FinalizeEnd = c.Start, c.End
		return nil
	case ClassFlush:
		m.flushes = append(m.flushes, *c)
		return nil
	}
	m.t.Calls++
	start := max(c.Start, m.busyEnd)
	if c.End > start {
		m.t.InMPI += c.End - start
		if c.Func.Class() == ClassType || c.Func.Class() == ClassTest && !c.Flag && len(c.Done) == 0 {
			m.t.AsCompute += c.End - start
		}
	}
	m.busyEnd = max(m.busyEnd, c.End)
	return nil
}

// finish checks the times and sums the tracer's flushes.
func (m *rankMeasure) finish() (RankTimes, error) {
	t := m.t
	t.NoInit = !m.init
	if !m.fin {
		return RankTimes{}, fmt.Errorf("no MPI_Finalize record in %d records (the rank ended without MPI_Finalize, or the trace was cut): the measured time runs up to MPI_Finalize", m.n)
	}
	if !m.anyTime {
		return RankTimes{}, fmt.Errorf("%w: every one of its %d records is at time 0", ErrNoTimestamps, m.n)
	}
	if t.FinalizeStart < t.InitEnd {
		return RankTimes{}, fmt.Errorf("MPI_Finalize starts at %d ns, before MPI_Init ended (%d ns)", t.FinalizeStart, t.InitEnd)
	}
	if m.busyEnd > t.FinalizeStart {
		return RankTimes{}, fmt.Errorf("an MPI call ends at %d ns, after MPI_Finalize started (%d ns)", m.busyEnd, t.FinalizeStart)
	}
	for _, f := range m.flushes {
		lo, hi := max(f.Start, t.InitEnd), min(f.End, t.FinalizeStart)
		if hi > lo {
			t.Tracer += hi - lo
		}
	}
	// The tracer flushes between calls; a flush that overlaps a call (from
	// another thread) must not make the computation negative.
	t.Tracer = min(t.Tracer, t.Measured()-t.InMPI)
	return t, nil
}
