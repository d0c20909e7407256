package bench

// The mpi backend's protocol. gopsim starts gopsim-prtt (bench/mpi/prtt.c,
// built into bin/ by `make calibrate-deps`) under a launcher that runs it
// on two ranks (`mpirun -np 2`), writes commands to the launcher's
// standard input, which the launcher forwards to rank 0 (Open MPI's and
// MPICH's mpirun do; Slurm's srun does with --input=0), and reads rank 0's
// answers from the launcher's standard output. Rank 0 times the rounds,
// rank 1 echoes; both are MPI processes, so the messages take the path an
// application's would: shared memory on one host, the MPI's network
// between hosts. Everything is text in lines ending in '\n'; numbers are
// decimal integers.
//
// Commands, gopsim to rank 0:
//
//	batch SIZE REPEAT K      then K lines:  N DELAY_NS SLEEP EXCHANGE
//	quit                     (the end of the input means the same)
//
// A batch is the K rounds given, REPEAT times over (REPEAT*K rounds in
// all, in order), every message of SIZE bytes. A round with EXCHANGE 0 is
// N messages from rank 0 to rank 1 (MPI_Send, tag 1), DELAY_NS apart (the
// delay starts when the previous MPI_Send returns; SLEEP 1 sleeps through
// it, 0 spins), then one reply from rank 1 (tag 2). A round with EXCHANGE
// 1 (DELAY_NS and SLEEP 0) is N exchanges: both ranks call MPI_Sendrecv,
// each sending SIZE bytes to the other and receiving SIZE bytes from it
// (tag 4), N times in a row; rank 0 times them all. Limits: 1 <= SIZE <= MaxSizeBytes,
// 1 <= REPEAT*K <= 2^20, 1 <= N <= MaxRoundMessages, 0 <= DELAY_NS <=
// 2^40. Before a batch's first round rank 1 tells rank 0 that it is
// ready (a 0-byte message, tag 3, which also carries rank 1's host name
// once at the start), so that the clock starts when both are.
//
// Output, rank 0 to gopsim: lines "@prtt KEYWORD FIELDS...":
//
//	@prtt hello VERSION RANKS HOST0 HOST1 LIBRARY   once, after MPI_Init
//	@prtt batch SIZE COUNT                         after each batch; COUNT = REPEAT*K
//	@prtt r N DELAY_NS PRTT_NS                     COUNT lines, the rounds in order
//	@prtt end
//	@prtt bye BATCHES ROUNDS MESSAGES              after quit, before MPI_Finalize
//	@prtt error MESSAGE                            in place of any line; the program then exits with status 1
//
// VERSION is 2 (1 had no EXCHANGE), RANKS 2 (gopsim-prtt refuses to run on more or fewer),
// HOST0 and HOST1 are MPI_Get_processor_name's (blanks replaced by '_'),
// LIBRARY is the first line of MPI_Get_library_version's string. In an r
// line N repeats the round's N, DELAY_NS is the mean delay actually spent
// between its messages (0 when none was asked) and PRTT_NS the round trip,
// or an exchange round's N exchanges (at least 1), both from
// CLOCK_MONOTONIC.
//
// Design notes. A batch is a pattern and a repeat count because Measure's
// batches are: its interleaved rounds are the same few kinds over and
// over, so a batch of 880 rounds is 5 lines to send (launchers that copy
// standard input to every rank, as srun does by default, are not flooded).
// Rank 0 prints a batch's results after its last round, so that output
// never costs time inside a round. The "@prtt " tag sets the protocol's
// lines apart from whatever else reaches the launcher's standard output
// (its own notices, a banner): gopsim passes lines without the tag on to
// its log, and ignores what precedes the tag in a line (the prefix of
// Open MPI's --tag-output). Text rather than binary: one line per round
// is under a MB for a whole default calibration, and a transcript can be read and
// replayed by hand (printf 'batch 8 1 1\n1 0 0\n' | mpirun -np 2
// bin/gopsim-prtt). A change of meaning bumps VERSION.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gopsim/gopsim/sim"
)

const (
	mpiTag         = "@prtt "
	mpiVersion     = 2
	mpiMaxLineSize = 64 << 10
)

// DefaultMPIProgram is the name of the mpi backend's program
// (bench/mpi/prtt.c), as `make calibrate-deps` builds it into bin/.
const DefaultMPIProgram = "gopsim-prtt"

// MPIBufferOffset is where gopsim-prtt's message buffers start past a
// page boundary, in bytes (BUF_OFFSET in bench/mpi/prtt.c): where malloc
// puts an application's buffer, so that a single-copy transfer pins as
// many pages as the application's would. A parameter file of the mpi
// backend records it (Source.BufferOffset).
const MPIBufferOffset = 16

// DefaultMPILauncher is the command that MPIOptions.Launcher defaults to.
var DefaultMPILauncher = []string{"mpirun", "-np", "2"}

// ErrMPIProgram is wrapped by the errors that gopsim-prtt itself reports
// ("@prtt error").
var ErrMPIProgram = errors.New("bench: the MPI program reported an error")

// MPIOutputError is a problem at a position (1-based line and column) of
// gopsim-prtt's output. Err is ErrProtocol for a line that breaks the
// protocol, io.ErrUnexpectedEOF when the output ends early and
// ErrMPIProgram for an error the program reports.
type MPIOutputError struct {
	Name      string
	Line, Col int
	Msg       string
	Err       error
}

func (e *MPIOutputError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Name, e.Line, e.Col, e.Msg)
}

// Unwrap returns e.Err.
func (e *MPIOutputError) Unwrap() error { return e.Err }

// MPIOptions say how StartMPI runs the mpi backend. The zero value of
// every field is its documented default.
type MPIOptions struct {
	// Launcher runs a program on two ranks, the program's path appended
	// to it; nil means DefaultMPILauncher. It must forward its standard
	// input to rank 0 and rank 0's standard output to its own.
	Launcher []string
	// Program is the path of gopsim-prtt; "" means DefaultMPIProgram
	// looked up on $PATH.
	Program string
	// Env is added to the launcher's environment (Open MPI as root wants
	// OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
	Env []string
	// Log receives the launcher's standard error and the lines of its
	// standard output that are not the protocol's, one write at a time;
	// nil discards them.
	Log io.Writer
}

// MPIInfo is what gopsim-prtt reports when it starts.
type MPIInfo struct {
	Hosts   [2]string // of rank 0 (the timer) and rank 1 (the echo)
	Library string    // the first line of MPI_Get_library_version
}

// MPIProber is the mpi backend: it runs PRTT rounds through gopsim-prtt
// on two MPI ranks. Start it with StartMPI, stop it with Close.
type MPIProber struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	in      *bufio.Writer
	out     *mpiReader
	stdout  io.Reader
	info    MPIInfo
	command string
	err     error // the session is broken: every call returns it
	closed  bool
	opt     MPIOptions // to relaunch
	launch  int        // launches before this one
}

// mpiProgram returns prog, which must be a file, or the program called
// name on $PATH when prog is "".
func mpiProgram(prog, name string) (string, error) {
	if prog == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("bench: %s not found on $PATH: build it with 'make calibrate-deps' (needs mpicc) or name it", name)
		}
		return p, nil
	}
	if st, err := os.Stat(prog); err != nil || st.IsDir() {
		return "", fmt.Errorf("bench: MPI program %s: not a file: build it with 'make calibrate-deps' (needs mpicc)", prog)
	}
	return prog, nil
}

// StartMPI starts gopsim-prtt on two ranks and waits for it to report
// (MPIInfo). Cancelling ctx stops the launcher (SIGTERM, then SIGKILL 10 s
// later) at any time of the session.
func StartMPI(ctx context.Context, o MPIOptions) (*MPIProber, error) {
	prog, err := mpiProgram(o.Program, DefaultMPIProgram)
	if err != nil {
		return nil, err
	}
	launcher := o.Launcher
	if len(launcher) == 0 {
		launcher = DefaultMPILauncher
	}
	argv := append(append([]string(nil), launcher[1:]...), prog)
	cmd := exec.CommandContext(ctx, launcher[0], argv...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), o.Env...)
	var log io.Writer = io.Discard
	if o.Log != nil {
		log = &lockedWriter{w: o.Log} // the launcher's stderr and stray lines, concurrently
	}
	cmd.Stderr = log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	p := &MPIProber{cmd: cmd, stdin: stdin, in: bufio.NewWriter(stdin), stdout: stdout,
		command: strings.Join(append(append([]string(nil), launcher...), prog), " ")}
	p.out = newMPIReader(stdout, DefaultMPIProgram+" output", log)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting %s: %w", p.command, err)
	}
	info, err := p.out.hello()
	if err != nil {
		return nil, p.abort(err)
	}
	p.info = info
	p.opt = o
	return p, nil
}

// Relaunch ends the session and starts a new one with the same options
// (Config.Launches): new processes, on the same hosts with the same
// library, or an error that says what moved. After an error the prober
// is closed.
func (p *MPIProber) Relaunch(ctx context.Context) error {
	if err := p.Close(); err != nil {
		return err
	}
	np, err := StartMPI(ctx, p.opt)
	if err != nil {
		p.err = err
		return err
	}
	if np.info != p.info {
		np.Close()
		p.err = fmt.Errorf("bench: launch %d ran rank 0 on %s and rank 1 on %s with %q, launch 1 on %s and %s with %q: the launches must measure the same pair",
			p.launch+2, np.info.Hosts[0], np.info.Hosts[1], np.info.Library, p.info.Hosts[0], p.info.Hosts[1], p.info.Library)
		return p.err
	}
	np.launch = p.launch + 1
	*p = *np
	return nil
}

// Launches returns the number of launches so far (1 before any Relaunch).
func (p *MPIProber) Launches() int { return p.launch + 1 }

// Info says where the ranks run and which MPI they use.
func (p *MPIProber) Info() MPIInfo { return p.info }

// Command is the command line that runs the program.
func (p *MPIProber) Command() string { return p.command }

// abort ends a failed session: it stops the launcher, waits for it and
// returns err with the launcher's exit status.
func (p *MPIProber) abort(err error) error {
	if p.err != nil {
		return p.err
	}
	// Without input the program quits at its next command; one that
	// does not is stopped.
	p.stdin.Close()
	kill := time.AfterFunc(10*time.Second, func() { p.cmd.Process.Signal(syscall.SIGTERM) })
	defer kill.Stop()
	io.Copy(io.Discard, p.stdout)
	werr := p.cmd.Wait()
	how := "exit status 0"
	if werr != nil {
		how = werr.Error()
	}
	p.err = fmt.Errorf("bench: %s (%s): %w", p.command, how, err)
	p.closed = true
	return p.err
}

// Rounds implements Prober.
func (p *MPIProber) Rounds(ctx context.Context, sizeBytes int64, rounds []Round, res []Result) error {
	if sizeBytes < 1 || sizeBytes > MaxSizeBytes {
		return fmt.Errorf("bench: message size %d bytes outside 1..%d", sizeBytes, MaxSizeBytes)
	}
	if len(rounds) < 1 || len(rounds) > maxBatch || len(res) != len(rounds) {
		return fmt.Errorf("bench: %d rounds (%d results) in a batch, want 1..%d", len(rounds), len(res), maxBatch)
	}
	if err := checkRounds(rounds, true); err != nil {
		return err
	}
	if p.err != nil {
		return p.err
	}
	if p.closed {
		return errors.New("bench: mpi backend used after Close")
	}
	stop := context.AfterFunc(ctx, func() { p.cmd.Process.Signal(syscall.SIGTERM) })
	defer stop()
	k := period(rounds)
	fmt.Fprintf(p.in, "batch %d %d %d\n", sizeBytes, len(rounds)/k, k)
	for _, r := range rounds[:k] {
		fmt.Fprintf(p.in, "%d %d %d %d\n", r.N, r.Delay.Nanoseconds(), b2i(r.Sleep), b2i(r.Exchange))
	}
	if err := p.in.Flush(); err != nil {
		return p.abort(ctxErr(ctx, fmt.Errorf("sending a batch: %w", err)))
	}
	if err := p.out.batch(sizeBytes, rounds, res); err != nil {
		return p.abort(ctxErr(ctx, err))
	}
	return nil
}

// Exchanges implements Exchanger: gopsim-prtt runs exchange rounds.
func (p *MPIProber) Exchanges() bool { return true }

// Close ends the session: it tells the program to quit and waits for the
// launcher to exit (at most 30 s, then stops it).
func (p *MPIProber) Close() error {
	if p.closed {
		return p.err
	}
	p.closed = true
	p.in.WriteString("quit\n")
	werr := p.in.Flush()
	p.stdin.Close()
	kill := time.AfterFunc(30*time.Second, func() { p.cmd.Process.Signal(syscall.SIGTERM) })
	defer kill.Stop()
	err := p.out.bye()
	io.Copy(io.Discard, p.stdout)
	if cerr := p.cmd.Wait(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("%s: %w", p.command, cerr))
	}
	if err != nil {
		if werr != nil {
			err = errors.Join(werr, err)
		}
		p.err = fmt.Errorf("bench: closing the mpi backend: %w", err)
		return p.err
	}
	return nil
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// period returns the length of the shortest prefix of rounds that rounds
// repeats whole (len(rounds) at most).
func period(rounds []Round) int {
	n := len(rounds)
	for k := 1; k < n; k++ {
		if n%k != 0 {
			continue
		}
		i := k
		for i < n && rounds[i] == rounds[i-k] {
			i++
		}
		if i == n {
			return k
		}
	}
	return n
}

// mpiReader reads gopsim-prtt's output line by line.
type mpiReader struct {
	sc    *bufio.Scanner
	name  string
	line  int
	stray io.Writer // lines without the tag
}

func newMPIReader(r io.Reader, name string, stray io.Writer) *mpiReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), mpiMaxLineSize)
	return &mpiReader{sc: sc, name: name, stray: stray}
}

// mpiLine is a protocol line: its fields after the tag and their columns.
type mpiLine struct {
	f    []string
	col  []int
	line int
}

func (r *mpiReader) errorf(line, col int, err error, format string, a ...any) error {
	return &MPIOutputError{Name: r.name, Line: line, Col: col, Msg: fmt.Sprintf(format, a...), Err: err}
}

// next returns the next protocol line, passing other lines to r.stray. An
// "@prtt error" line is returned as an error wrapping ErrMPIProgram; the
// end of the output, with what, as io.ErrUnexpectedEOF.
func (r *mpiReader) next(what string) (mpiLine, error) {
	for r.sc.Scan() {
		r.line++
		text := strings.TrimSuffix(r.sc.Text(), "\r")
		at := strings.Index(text, mpiTag)
		if at < 0 {
			fmt.Fprintln(r.stray, text)
			continue
		}
		l := mpiLine{line: r.line}
		rest, base := text[at+len(mpiTag):], at+len(mpiTag)
		for i := 0; i < len(rest); {
			if rest[i] == ' ' || rest[i] == '\t' {
				i++
				continue
			}
			j := i
			for j < len(rest) && rest[j] != ' ' && rest[j] != '\t' {
				j++
			}
			l.f = append(l.f, rest[i:j])
			l.col = append(l.col, base+i+1)
			i = j
		}
		if len(l.f) == 0 {
			return l, r.errorf(r.line, base+1, ErrProtocol, "%s without a keyword, want %s", strings.TrimSpace(mpiTag), what)
		}
		if l.f[0] == "error" {
			msg := strings.TrimSpace(rest[l.col[0]-base-1+len("error"):])
			return l, r.errorf(r.line, l.col[0], ErrMPIProgram, "%s: %s", DefaultMPIProgram, msg)
		}
		return l, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return mpiLine{}, r.errorf(r.line+1, 1, ErrProtocol, "line longer than %d bytes", mpiMaxLineSize)
		}
		return mpiLine{}, fmt.Errorf("%s: line %d: %w", r.name, r.line+1, err)
	}
	return mpiLine{}, r.errorf(r.line+1, 1, io.ErrUnexpectedEOF, "the output ends, want %s", what)
}

// expect returns the next protocol line, which must have the keyword kw
// and, with fields >= 0, exactly that many fields after it.
func (r *mpiReader) expect(kw string, fields int, what string) (mpiLine, error) {
	l, err := r.next(what)
	if err != nil {
		return l, err
	}
	if l.f[0] != kw {
		return l, r.errorf(l.line, l.col[0], ErrProtocol, "%q, want %s", l.f[0], what)
	}
	if fields >= 0 && len(l.f)-1 != fields {
		col := l.col[len(l.col)-1]
		if len(l.f)-1 > fields {
			col = l.col[fields+1]
		}
		return l, r.errorf(l.line, col, ErrProtocol, "%s line with %d fields, want %d (%s)", kw, len(l.f)-1, fields, what)
	}
	return l, nil
}

// integer returns field i of l as an integer in lo..hi.
func (r *mpiReader) integer(l mpiLine, i int, name string, lo, hi int64) (int64, error) {
	x, err := strconv.ParseInt(l.f[i], 10, 64)
	if err != nil {
		return 0, r.errorf(l.line, l.col[i], ErrProtocol, "%s: %q is not an integer", name, l.f[i])
	}
	if x < lo || x > hi {
		return 0, r.errorf(l.line, l.col[i], ErrProtocol, "%s=%d outside %d..%d", name, x, lo, hi)
	}
	return x, nil
}

// hello reads the hello line.
func (r *mpiReader) hello() (MPIInfo, error) {
	const what = "\"@prtt hello VERSION RANKS HOST0 HOST1 LIBRARY\""
	l, err := r.expect("hello", -1, what)
	if err != nil {
		return MPIInfo{}, err
	}
	if len(l.f) < 6 {
		return MPIInfo{}, r.errorf(l.line, l.col[len(l.col)-1], ErrProtocol, "hello line with %d fields, want at least 5 (%s)", len(l.f)-1, what)
	}
	if l.f[1] != strconv.Itoa(mpiVersion) {
		return MPIInfo{}, r.errorf(l.line, l.col[1], ErrProtocol, "protocol version %q, want %d (%s and gopsim are from different builds)", l.f[1], mpiVersion, DefaultMPIProgram)
	}
	if l.f[2] != "2" {
		return MPIInfo{}, r.errorf(l.line, l.col[2], ErrProtocol, "%q ranks, want 2", l.f[2])
	}
	return MPIInfo{Hosts: [2]string{l.f[3], l.f[4]}, Library: sim.LibraryName(strings.Join(l.f[5:], " "))}, nil
}

// batch reads the results of a batch of rounds of sizeBytes bytes into
// res, checking them against what was asked.
func (r *mpiReader) batch(sizeBytes int64, rounds []Round, res []Result) error {
	l, err := r.expect("batch", 2, "\"@prtt batch SIZE COUNT\"")
	if err != nil {
		if len(l.f) > 0 && l.f[0] == "bye" {
			return r.errorf(l.line, l.col[0], ErrProtocol, "the program quit instead of running a batch: its standard input ended (does the launcher forward it to rank 0? srun needs --input=0)")
		}
		return err
	}
	s, err := r.integer(l, 1, "SIZE", 1, MaxSizeBytes)
	if err != nil {
		return err
	}
	if s != sizeBytes {
		return r.errorf(l.line, l.col[1], ErrProtocol, "batch of %d-byte messages, want %d", s, sizeBytes)
	}
	count, err := r.integer(l, 2, "COUNT", 1, maxBatch)
	if err != nil {
		return err
	}
	if count != int64(len(rounds)) {
		return r.errorf(l.line, l.col[2], ErrProtocol, "batch of %d rounds, want %d", count, len(rounds))
	}
	for i, rd := range rounds {
		l, err := r.expect("r", 3, fmt.Sprintf("\"@prtt r N DELAY_NS PRTT_NS\" of round %d of %d", i+1, len(rounds)))
		if err != nil {
			return err
		}
		n, err := r.integer(l, 1, "N", 1, MaxRoundMessages)
		if err != nil {
			return err
		}
		if n != int64(rd.N) {
			return r.errorf(l.line, l.col[1], ErrProtocol, "round %d has N=%d, want %d", i+1, n, rd.N)
		}
		d, err := r.integer(l, 2, "DELAY_NS", 0, maxDelayNs)
		if err != nil {
			return err
		}
		if d != 0 && (rd.N == 1 || rd.Delay == 0) {
			return r.errorf(l.line, l.col[2], ErrProtocol, "round %d: DELAY_NS=%d, want 0 (no delay asked)", i+1, d)
		}
		t, err := r.integer(l, 3, "PRTT_NS", 1, maxPRTTNs)
		if err != nil {
			return err
		}
		res[i] = Result{PRTT: time.Duration(t), Delay: time.Duration(d)}
	}
	_, err = r.expect("end", 0, "\"@prtt end\"")
	return err
}

// bye reads the bye line.
func (r *mpiReader) bye() error {
	l, err := r.expect("bye", 3, "\"@prtt bye BATCHES ROUNDS MESSAGES\"")
	if err != nil {
		return err
	}
	for i, name := range []string{"BATCHES", "ROUNDS", "MESSAGES"} {
		if _, err := r.integer(l, i+1, name, 0, 1<<62); err != nil {
			return err
		}
	}
	return nil
}
