package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
)

// Paraver states (the .pcf names them).
const (
	StateIdle  = 0
	StateCalc  = 1
	StateSend  = 2 // a send's CPU overhead
	StateRecv  = 3 // a receive overhead
	StateNoise = 4
)

// EventOp is the Paraver event type that marks CPU work with its op: the
// value is the op's index within its rank plus one at the start of a
// calc, send overhead or receive overhead, and 0 at its end.
const EventOp = 90000001

// ParaverDate is the creation date every .prv header carries, so that the
// same run gives the same file: Paraver shows it, and nothing depends on
// it.
const ParaverDate = "01/01/70 at 00:00"

// WriteParaver writes the run as the Paraver trace PREFIX.prv with its
// PREFIX.pcf and PREFIX.row, each replaced atomically (internal/atomicfile).
func WriteParaver(prefix string, p *sim.Program, res *sim.Result, opt Options) error {
	if _, err := newView(p, res, opt, true); err != nil {
		return err
	}
	if err := atomicfile.Write(prefix+".prv", func(w io.Writer) error { return WritePRV(w, p, res, opt) }); err != nil {
		return fmt.Errorf("timeline: %s.prv: %w", prefix, err)
	}
	if err := atomicfile.Write(prefix+".pcf", WritePCF); err != nil {
		return fmt.Errorf("timeline: %s.pcf: %w", prefix, err)
	}
	if err := atomicfile.Write(prefix+".row", func(w io.Writer) error { return WriteROW(w, p, res, opt) }); err != nil {
		return fmt.Errorf("timeline: %s.row: %w", prefix, err)
	}
	return nil
}

// prvRec is one record of a .prv body, before formatting.
type prvRec struct {
	time   int64 // begin (state), time (event), logical send (communication)
	kind   uint8 // 1 state, 2 event, 3 communication
	task   int32 // 0-based position among the shown ranks (sender's, for a communication)
	thread int32 // 0-based
	end    int64 // state: end; event: value
	val    int64 // state: state; event: type; communication: the send op
	at, n  int32 // its line, in the rank's text (prvRuns.add)
}

// WritePRV writes the .prv trace. The header is
//
//	#Paraver (01/01/70 at 00:00):FTIME_ns:K(C,...,C):1:K(C:1,...,C:K)
//
// followed by one comment line (Paraver skips body lines that start with
// '#') that echoes the run: "# gopsim: input NAME; params ...; model
// ...; noise ...; network ...; ranks 0-15,32; window 0..end ns" (model,
// noise and network when Options give them).
//
// with the fixed date ParaverDate, FTIME the run's maximum finishing time,
// and K nodes of C CPUs (C the CPUs per rank), one per shown rank, running
// one application of K tasks (the shown ranks, in Options.Ranks order:
// every rank by default) of C threads (one per CPU). CPU c of the i-th
// shown rank is Paraver CPU i·C + c + 1. The body has, sorted by time
// (then record type, task, thread):
//
//	1:cpu:1:task:thread:begin:end:state          CPU work: StateCalc, StateSend, StateRecv, StateNoise
//	2:cpu:1:task:thread:time:90000001:value      EventOp at the start (op index + 1) and end (0) of CPU work
//	3:cpu:1:task:thread:lsend:psend:cpu:1:task:thread:lrecv:precv:size:tag
//
// A communication is a message between two shown ranks: logical send
// when its send started, physical send o later (when it leaves for the
// wire), logical receive when the receive completed, physical receive
// when the receiver took it; the receiving thread is the CPU that paid the
// receive overhead. A tag of goal.AnyTag is written as 0. Gaps between
// states are idle.
//
// The records are sorted rank by rank in memory and merged from a
// scratch file in Options.TempDir (prvsort.go): memory follows the
// largest rank, not the run.
func WritePRV(w io.Writer, p *sim.Program, res *sim.Result, opt Options) error {
	v, err := newView(p, res, opt, true)
	if err != nil {
		return err
	}
	runs, err := newPrvRuns(opt.TempDir)
	if err != nil {
		return err
	}
	defer runs.close()
	if err := v.prvRecords(runs); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(v.prvHeader()); err != nil {
		return err
	}
	if _, err := bw.Write(v.prvComment()); err != nil {
		return err
	}
	if err := runs.merge(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// prvRecords adds the records of each shown rank to runs, rank by rank,
// with their lines.
func (v *view) prvRecords(runs *prvRuns) error {
	var recs []prvRec
	var text []byte
	for i, r := range v.ranks {
		recs = recs[:0]
		err := v.slices(r, func(s slice) error {
			if s.track >= v.nc {
				return nil // NICs are not Paraver threads
			}
			t := int32(s.track)
			state := int64(StateNoise)
			switch s.kind {
			case sCalc:
				state = StateCalc
			case sOSend:
				state = StateSend
			case sORecv:
				state = StateRecv
			}
			recs = append(recs, prvRec{time: s.start, kind: 1, task: int32(i), thread: t, end: s.end, val: state})
			if s.kind != sNoise {
				idx := int64(v.info(s.op).Index) + 1
				recs = append(recs, prvRec{time: s.start, kind: 2, task: int32(i), thread: t, end: idx, val: EventOp},
					prvRec{time: s.end, kind: 2, task: int32(i), thread: t, end: 0, val: EventOp})
			}
			if s.kind == sOSend && v.flow(s.msg) {
				recs = append(recs, prvRec{time: s.start, kind: 3, task: int32(i), thread: t, val: int64(s.msg)})
			}
			return nil
		})
		if err != nil {
			return err
		}
		text = text[:0]
		for k := range recs {
			x := &recs[k]
			x.at = int32(len(text))
			text = v.prvLine(text, x)
			x.n = int32(len(text)) - x.at
		}
		if err := runs.add(recs, text); err != nil {
			return err
		}
	}
	return nil
}

// prvHeader returns the .prv header line.
func (v *view) prvHeader() []byte {
	b := make([]byte, 0, 256)
	b = append(b, "#Paraver ("+ParaverDate+"):"...)
	b = strconv.AppendInt(b, v.res.MaxTime, 10)
	b = append(b, "_ns:"...)
	k := len(v.ranks)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, '(')
	for i := 0; i < k; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v.nc), 10)
	}
	b = append(b, "):1:"...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, '(')
	for i := 0; i < k; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v.nc), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(i+1), 10)
	}
	return append(b, ")\n"...)
}

// prvComment returns the comment line after the header, which echoes what
// the Chrome form's otherData does: the generator, the input, the
// parameters, the ranks shown and the window (Paraver skips a body line
// that starts with '#').
func (v *view) prvComment() []byte {
	b := make([]byte, 0, 256)
	b = append(b, "# gopsim: "...)
	if v.input != "" {
		b = append(b, "input "...)
		b = append(b, strings.ReplaceAll(v.input, "\n", " ")...)
		b = append(b, "; "...)
	}
	b = append(b, "params "...)
	b = append(b, v.res.Params.String()...)
	for _, kv := range v.setup {
		if kv[1] != "" {
			b = append(b, "; "...)
			b = append(b, kv[0]...)
			b = append(b, ' ')
			b = append(b, strings.ReplaceAll(kv[1], "\n", " ")...)
		}
	}
	b = append(b, "; ranks "...)
	b = append(b, rankList(v.ranks)...)
	b = append(b, "; window "...)
	b = strconv.AppendInt(b, v.from, 10)
	b = append(b, ".."...)
	if v.to == 1<<63-1 {
		b = append(b, "end"...)
	} else {
		b = strconv.AppendInt(b, v.to, 10)
	}
	return append(b, " ns\n"...)
}

// prvCPU appends the cpu:appl:task:thread of a record.
func (v *view) prvCPU(b []byte, task, thread int32) []byte {
	b = strconv.AppendInt(b, int64(task)*int64(v.nc)+int64(thread)+1, 10)
	b = append(b, ":1:"...)
	b = strconv.AppendInt(b, int64(task)+1, 10)
	b = append(b, ':')
	return strconv.AppendInt(b, int64(thread)+1, 10)
}

// prvLine appends the .prv line of record x.
func (v *view) prvLine(b []byte, x *prvRec) []byte {
	b = append(b, '0'+x.kind, ':')
	b = v.prvCPU(b, x.task, x.thread)
	b = append(b, ':')
	b = strconv.AppendInt(b, x.time, 10)
	switch x.kind {
	case 1:
		b = append(b, ':')
		b = strconv.AppendInt(b, x.end, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, x.val, 10)
	case 2:
		b = append(b, ':')
		b = strconv.AppendInt(b, x.val, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, x.end, 10)
	case 3:
		rec := v.res.Record
		s := int32(x.val)
		in := v.info(s)
		sr := &rec[s]
		c := v.costs.Of(in.Size)
		b = append(b, ':')
		b = strconv.AppendInt(b, sr.Start+c.Overhead, 10)
		b = append(b, ':')
		b = v.prvCPU(b, v.slot[in.Peer], int32(in.CPU))
		b = append(b, ':')
		b = strconv.AppendInt(b, rec[sr.Match].End, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, sr.Arrive, 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, in.Size, 10)
		b = append(b, ':')
		t := in.Tag
		if t == goal.AnyTag {
			t = 0
		}
		b = strconv.AppendUint(b, uint64(t), 10)
	}
	return append(b, '\n')
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// WritePCF writes the .pcf configuration: default view options, the
// state names and colours, and the EventOp event type.
func WritePCF(w io.Writer) error {
	_, err := io.WriteString(w, `DEFAULT_OPTIONS

LEVEL               THREAD
UNITS               NANOSEC
LOOK_BACK           100
SPEED               1
FLAG_ICONS          ENABLED
NUM_OF_STATE_COLORS 1000
YMAX_SCALE          4


DEFAULT_SEMANTIC

THREAD_FUNC         State As Is


STATES
0    Idle
1    Calc
2    Send overhead (o_send)
3    Receive overhead (o_recv)
4    Noise


STATES_COLOR
0    {117,195,255}
1    {0,0,255}
2    {230,25,75}
3    {60,180,75}
4    {255,165,0}


EVENT_TYPE
0    `+strconv.Itoa(EventOp)+`    GOAL op (index within its rank + 1; 0 at the end of its CPU work)
VALUES
0      End


`)
	return err
}

// WriteROW writes the .row names: CPUs, nodes, tasks and threads, named
// after the shown ranks.
func WriteROW(w io.Writer, p *sim.Program, res *sim.Result, opt Options) error {
	v, err := newView(p, res, opt, true)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	k := len(v.ranks)
	fmt.Fprintf(bw, "LEVEL CPU SIZE %d\n", k*v.nc)
	for _, r := range v.ranks {
		for c := 0; c < v.nc; c++ {
			fmt.Fprintf(bw, "rank %d CPU %d\n", r, c)
		}
	}
	fmt.Fprintf(bw, "\nLEVEL NODE SIZE %d\n", k)
	for _, r := range v.ranks {
		fmt.Fprintf(bw, "rank %d\n", r)
	}
	fmt.Fprintf(bw, "\nLEVEL TASK SIZE %d\n", k)
	for _, r := range v.ranks {
		fmt.Fprintf(bw, "rank %d\n", r)
	}
	fmt.Fprintf(bw, "\nLEVEL THREAD SIZE %d\n", k*v.nc)
	for _, r := range v.ranks {
		for c := 0; c < v.nc; c++ {
			fmt.Fprintf(bw, "rank %d CPU %d\n", r, c)
		}
	}
	return bw.Flush()
}
