package trace_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/chakra"
	"github.com/gopsim/gopsim/trace/dumpi"
	"github.com/gopsim/gopsim/trace/liballprof"
	"github.com/gopsim/gopsim/trace/tit"
)

// TestConvertWorkers checks that converting ranks on several goroutines
// gives the schedule and the stats of one, for a trace of every format,
// with ranks copied for the writer and, for a copy limit of 0 and 40 ops
// and edges, lent (all or some).
func TestConvertWorkers(t *testing.T) {
	open := map[string]func() (trace.Source, error){
		"gopsim trace": func() (trace.Source, error) { return trace.OpenDir("testdata/irregular") },
		"liballprof": func() (trace.Source, error) {
			return liballprof.Open("liballprof/testdata/sweep3d-2x2", liballprof.Options{})
		},
		"tit": func() (trace.Source, error) {
			return tit.Open("tit/testdata/simgrid-replay-examples/actions_allreduce.txt", tit.Options{HostSpeed: 2e9})
		},
		"dumpi": func() (trace.Source, error) {
			return dumpi.Open("dumpi/testdata/sstmacro-testbgp-7/testbgp.meta", dumpi.Options{})
		},
		"chakra": func() (trace.Source, error) {
			return chakra.Open("chakra/testdata/astrasim-allreduce-16npus-1MB", chakra.Options{})
		},
	}
	for name, o := range open {
		t.Run(name, func(t *testing.T) {
			var want *goal.Schedule
			var wantSt *trace.ConvertStats
			for _, run := range []struct{ workers, copyLimit int }{{1, 1 << 30}, {2, 1 << 30}, {3, 1 << 30}, {5, 1 << 30}, {2, 0}, {3, 40}} {
				workers := run.workers
				restore := trace.SetCopyLimit(run.copyLimit)
				defer restore()
				src, err := o()
				if err != nil {
					t.Fatal(err)
				}
				s := goal.NewSchedule(src.NumRanks())
				st, err := trace.Convert(src, trace.ConvertOptions{Workers: workers}, s.AppendRank)
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				if want == nil {
					want, wantSt = s, st
					if len(s.Ops) == 0 {
						t.Fatal("no ops")
					}
					continue
				}
				if !reflect.DeepEqual(s, want) {
					t.Errorf("%+v: the schedule differs from one worker's", run)
				}
				if !reflect.DeepEqual(st, wantSt) {
					t.Errorf("%+v: stats %+v, want %+v", run, st, wantSt)
				}
			}
		})
	}
}

// TestConvertWorkersErrors checks that the first error by rank, and the
// stats up to it, do not depend on the workers: a failing write, a rank
// that cannot be converted, and unsupported calls in several ranks
// (reported together once every rank was read).
func TestConvertWorkersErrors(t *testing.T) {
	init := call(trace.FuncInit, 900, 1000, nil)
	send := func(peer int32) trace.Call {
		return call(trace.FuncSend, 2000, 2100, func(c *trace.Call) { c.Peer, c.Bytes, c.Comm, c.Tag = peer, 8, 0, 5 })
	}
	recv := func(peer int32) trace.Call {
		return call(trace.FuncRecv, 2000, 2100, func(c *trace.Call) { c.Peer, c.Bytes, c.Comm, c.Tag = peer, 8, 0, 5 })
	}
	abort := call(trace.FuncAbort, 3000, 3100, func(c *trace.Call) { c.Comm = 0 })
	badComm := call(trace.FuncBarrier, 3000, 3100, func(c *trace.Call) { c.Comm = 77 })
	ranks := [][]trace.Call{
		{init, send(1)}, {init, recv(0)}, {init, send(3), abort}, {init, recv(2)},
		{init, badComm}, {init, abort}, {init}, {init},
	}
	d := writeTrace(t, ranks)
	ranks[4] = []trace.Call{init, abort}
	unsupported := writeTrace(t, ranks)
	ok := func(*goal.RankBlock) error { return nil }
	cases := []struct {
		name  string
		d     *trace.Dir
		opt   trace.ConvertOptions
		write func(*goal.RankBlock) error
	}{
		{"write fails at rank 3", d, trace.ConvertOptions{Unsupported: "calc"}, func(b *goal.RankBlock) error {
			if b.Rank == 3 {
				return errors.New("disk full")
			}
			return nil
		}},
		{"rank 4 fails", d, trace.ConvertOptions{Unsupported: "calc"}, ok},
		{"unsupported, then rank 4 fails", d, trace.ConvertOptions{}, ok},
		{"unsupported in ranks 2, 4 and 5", unsupported, trace.ConvertOptions{}, ok},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want string
			for _, workers := range []int{1, 2, 3, 8, -2} {
				if workers < 0 { // lend every rank instead of copying it
					workers = -workers
					defer trace.SetCopyLimit(0)()
				}
				opt := c.opt
				opt.Workers = workers
				st, err := trace.Convert(c.d, opt, c.write)
				if err == nil {
					t.Fatalf("%d workers: no error", workers)
				}
				got := fmt.Sprintf("%v; %+v", err, *st)
				if want == "" {
					want = got
					t.Log(got)
					continue
				}
				if got != want {
					t.Errorf("%d workers:\n%s\nwant\n%s", workers, got, want)
				}
			}
		})
	}
}
