package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// DefaultInterval is how often Poll updates the bar when given 0.
const DefaultInterval = 200 * time.Millisecond

// Options configure NewWith. The zero value draws on a terminal only.
type Options struct {
	// Quiet draws nothing, whatever the writer.
	Quiet bool
	// Terminal treats the writer as a terminal even if it is not one
	// (tests, or a caller that knows better).
	Terminal bool
	// Width is the bar's width in characters; 0 means 20.
	Width int
	// Throttle is the shortest time between two redraws; 0 means 100 ms.
	Throttle time.Duration
}

// Bar is a progress bar, or a no-op when its writer is not a terminal or
// it is quiet. The zero value and a nil *Bar are no-ops too.
type Bar struct {
	pb *progressbar.ProgressBar // nil: draw nothing

	mu       sync.Mutex
	finished bool
}

// New returns a bar counting to total (<= 0: unknown, a spinner) units of
// what ("ranks", "points"), drawn on w when w is a terminal and quiet is
// false.
func New(w io.Writer, total int64, what string, quiet bool) *Bar {
	return NewWith(w, total, what, Options{Quiet: quiet})
}

// NewWith is New with options.
func NewWith(w io.Writer, total int64, what string, o Options) *Bar {
	if o.Quiet || w == nil || !(o.Terminal || IsTerminal(w)) {
		return &Bar{}
	}
	if total <= 0 {
		total = -1
	}
	if o.Width <= 0 {
		o.Width = 20
	}
	if o.Throttle <= 0 {
		o.Throttle = 100 * time.Millisecond
	}
	pb := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(o.Width),
		progressbar.OptionThrottle(o.Throttle),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(what),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	return &Bar{pb: pb}
}

// IsTerminal reports whether w is a terminal (an *os.File on a tty).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Enabled reports whether the bar draws anything.
func (b *Bar) Enabled() bool { return b != nil && b.pb != nil }

func (b *Bar) done() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.finished
}

// Add advances the bar by n.
func (b *Bar) Add(n int64) {
	if !b.Enabled() || b.done() {
		return
	}
	b.pb.Add64(n) // errors (a count past the total) only mean nothing is drawn
}

// Set moves the bar to n.
func (b *Bar) Set(n int64) {
	if !b.Enabled() || b.done() {
		return
	}
	b.pb.Set64(n)
}

// Finish fills the bar, ends its line and makes later calls no-ops. It
// is safe to call more than once.
func (b *Bar) Finish() {
	if !b.Enabled() {
		return
	}
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.finished = true
	b.mu.Unlock()
	b.pb.Finish()
}

// Abandon ends the bar's line where it stands, without filling it, for
// work that failed or was interrupted; later calls are no-ops.
func (b *Bar) Abandon() {
	if !b.Enabled() {
		return
	}
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.finished = true
	b.mu.Unlock()
	b.pb.Exit() // runs the completion function: the newline
}

// Poll sets the bar to get() every interval (0: DefaultInterval) on a
// goroutine until stop is called; stop sets it a last time and waits for
// the goroutine to end. It does not finish the bar. get is typically an
// atomic counter's Load, bumped by the workers.
func (b *Bar) Poll(get func() int64, interval time.Duration) (stop func()) {
	if !b.Enabled() {
		return func() {}
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				b.Set(get())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
			b.Set(get())
		})
	}
}
