package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// endSignals are the signals that end a command. Each first removes the
// temporary files of the outputs being written (atomicfile), so that an
// interrupted run leaves nothing behind, then ends the process as the
// signal's default action would.
var endSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// graceful has bit i set while a command handles endSignals[i] itself
// (sweep finishes its running points on the first interrupt; trace passes
// signals on to the traced program).
var graceful atomic.Uint32

// handleSignals declares that the running command handles sigs itself
// until release is called.
func handleSignals(sigs ...os.Signal) (release func()) {
	var mask uint32
	for i, s := range endSignals {
		for _, h := range sigs {
			if s == h {
				mask |= 1 << i
			}
		}
	}
	graceful.Or(mask)
	return func() { graceful.And(^mask) }
}

// removeTempsOnSignal installs the handler of endSignals for the command
// cmd; stop removes it. A signal that was ignored when gopsim started
// (nohup's SIGHUP) stays ignored.
func removeTempsOnSignal(cmd string, stderr io.Writer) (stop func()) {
	var sigs []os.Signal
	for _, s := range endSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				if graceful.Load()&signalBit(s) != 0 {
					continue
				}
				endBySignal(cmd, s, stderr)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

func signalBit(s os.Signal) uint32 {
	for i, e := range endSignals {
		if e == s {
			return 1 << i
		}
	}
	return 0
}

// endBySignal removes the temporary files and ends the process by s.
func endBySignal(cmd string, s os.Signal, stderr io.Writer) {
	n := atomicfile.RemoveTemporaries()
	msg := ""
	if n > 0 {
		msg = fmt.Sprintf("; removed %d unfinished output file(s)", n)
	}
	fmt.Fprintf(stderr, "\ngopsim %s: stopped by %v%s\n", cmd, s, msg)
	signal.Reset(s)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(s)
	}
	time.Sleep(time.Second) // the signal's default action ends the process
	code := 128 + 15
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	os.Exit(code)
}
