package timeline

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// WriteChrome writes the run as a Chrome trace-event JSON object:
//
//	{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
//
// Every shown rank is a process (pid = rank) named "rank R", with one
// thread per CPU (tid = CPU, "CPU c") and two per NIC (tid = CPUs + 2n,
// "NIC n send", and CPUs + 2n + 1, "NIC n recv"), all declared by
// process_name and thread_name metadata events. Busy intervals are
// complete events (ph "X") with ts and dur in µs, to the ns (three
// decimals); their args give the op (label and index), bytes, peer and
// tag. A message is a flow: ph "s" on the sender's o_send slice and ph
// "f" with "bp": "e" on the receiver's o_recv slice, with the send's
// global op index as id. otherData echoes the parameters, the input, the
// model, noise and network when Options give them, and the bounds.
//
// Events are written rank by rank as they are found, through a buffer:
// memory does not grow with the run.
func WriteChrome(w io.Writer, p *sim.Program, res *sim.Result, opt Options) error {
	v, err := newView(p, res, opt, false)
	if err != nil {
		return err
	}
	cw := &chromeWriter{v: v, w: bufio.NewWriterSize(w, 64<<10)}
	return cw.write()
}

type chromeWriter struct {
	v     *view
	w     *bufio.Writer
	buf   []byte
	first bool
}

// event starts a new event line: the separator, then "{".
func (c *chromeWriter) event() {
	if c.first {
		c.buf = append(c.buf, "\n"...)
		c.first = false
	} else {
		c.buf = append(c.buf, ",\n"...)
	}
	c.buf = append(c.buf, '{')
}

// flush hands the buffered events to the writer.
func (c *chromeWriter) flush() error {
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

func (c *chromeWriter) write() error {
	v := c.v
	c.buf = append(c.buf, `{"traceEvents": [`...)
	c.first = true
	for _, r := range v.ranks {
		c.meta(r)
		if err := v.slices(r, c.slice); err != nil {
			return err
		}
		if err := c.flush(); err != nil {
			return err
		}
	}
	c.buf = append(c.buf, "\n],\n"...)
	c.buf = append(c.buf, `"displayTimeUnit": "ns",`+"\n"...)
	c.otherData()
	c.buf = append(c.buf, "}\n"...)
	if err := c.flush(); err != nil {
		return err
	}
	return c.w.Flush()
}

// meta declares rank r's process and threads.
func (c *chromeWriter) meta(r int) {
	v := c.v
	c.event()
	c.buf = append(c.buf, `"name": "process_name", "ph": "M", "pid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(r), 10)
	c.buf = append(c.buf, `, "tid": 0, "args": {"name": "rank `...)
	c.buf = strconv.AppendInt(c.buf, int64(r), 10)
	c.buf = append(c.buf, `"}}`...)
	c.event()
	c.buf = append(c.buf, `"name": "process_sort_index", "ph": "M", "pid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(r), 10)
	c.buf = append(c.buf, `, "tid": 0, "args": {"sort_index": `...)
	c.buf = strconv.AppendInt(c.buf, int64(v.slot[r]), 10)
	c.buf = append(c.buf, `}}`...)
	for k := 0; k < v.nc+2*v.nn; k++ {
		c.event()
		c.buf = append(c.buf, `"name": "thread_name", "ph": "M", "pid": `...)
		c.buf = strconv.AppendInt(c.buf, int64(r), 10)
		c.buf = append(c.buf, `, "tid": `...)
		c.buf = strconv.AppendInt(c.buf, int64(k), 10)
		c.buf = append(c.buf, `, "args": {"name": `...)
		c.buf = appendString(c.buf, v.trackName(k))
		c.buf = append(c.buf, `}}`...)
	}
}

// slice writes one busy interval, and the flow event it anchors.
func (c *chromeWriter) slice(s slice) error {
	v := c.v
	in := v.info(s.op)
	c.event()
	c.buf = append(c.buf, `"name": "`...)
	c.buf = append(c.buf, sliceNames[s.kind]...)
	c.buf = append(c.buf, `", "cat": "`...)
	c.buf = append(c.buf, in.Kind.String()...)
	c.buf = append(c.buf, `", "ph": "X", "ts": `...)
	c.buf = appendMicros(c.buf, s.start)
	c.buf = append(c.buf, `, "dur": `...)
	c.buf = appendMicros(c.buf, s.end-s.start)
	c.buf = append(c.buf, `, "pid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(in.Rank), 10)
	c.buf = append(c.buf, `, "tid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(s.track), 10)
	c.buf = append(c.buf, `, "args": {"op": `...)
	c.buf = appendString(c.buf, v.p.Label(s.op))
	c.buf = append(c.buf, `, "index": `...)
	c.buf = strconv.AppendInt(c.buf, int64(in.Index), 10)
	if in.Kind == goal.Calc {
		c.buf = append(c.buf, `, "ns": `...)
		c.buf = strconv.AppendUint(c.buf, in.Size, 10)
	} else {
		msg := in
		if s.msg >= 0 {
			msg = v.info(s.msg)
		}
		peer := int64(msg.Peer)
		if in.Kind == goal.Recv {
			peer = int64(msg.Rank) // the actual sender, also for a wildcard receive
		}
		c.buf = append(c.buf, `, "bytes": `...)
		c.buf = strconv.AppendUint(c.buf, msg.Size, 10)
		c.buf = append(c.buf, `, "peer": `...)
		c.buf = strconv.AppendInt(c.buf, peer, 10)
		c.buf = append(c.buf, `, "tag": `...)
		c.buf = strconv.AppendInt(c.buf, tag(msg.Tag), 10)
	}
	c.buf = append(c.buf, "}}"...)
	switch {
	case s.kind == sOSend && v.flow(s.msg):
		c.flowEvent('s', in.Rank, s)
	case s.kind == sORecv && v.flow(s.msg):
		c.flowEvent('f', in.Rank, s)
	}
	if len(c.buf) > 32<<10 {
		return c.flush()
	}
	return nil
}

// flowEvent writes the start (ph 's') or end (ph 'f') of the flow of
// message slice s, at the slice's start on its track.
func (c *chromeWriter) flowEvent(ph byte, rank int, s slice) {
	c.event()
	c.buf = append(c.buf, `"name": "message", "cat": "message", "ph": "`...)
	c.buf = append(c.buf, ph)
	c.buf = append(c.buf, `", "id": `...)
	c.buf = strconv.AppendInt(c.buf, int64(s.msg), 10)
	c.buf = append(c.buf, `, "ts": `...)
	c.buf = appendMicros(c.buf, s.start)
	c.buf = append(c.buf, `, "pid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(rank), 10)
	c.buf = append(c.buf, `, "tid": `...)
	c.buf = strconv.AppendInt(c.buf, int64(s.track), 10)
	if ph == 'f' {
		c.buf = append(c.buf, `, "bp": "e"`...)
	}
	c.buf = append(c.buf, '}')
}

// otherData echoes the parameters, the input, the model, noise and
// network (Options) and the bounds.
func (c *chromeWriter) otherData() {
	v := c.v
	pr := v.res.Params
	c.buf = append(c.buf, `"otherData": {"generator": "gopsim", "input": `...)
	c.buf = appendString(c.buf, v.input)
	for _, kv := range []struct {
		k string
		v float64
	}{{"L_ns", pr.L}, {"o_ns", pr.Overhead}, {"g_ns", pr.Gap}, {"G_ns_per_byte", pr.GapPerByte},
		{"O_ns_per_byte", pr.OverheadPerByte}} {
		c.buf = append(c.buf, `, "`...)
		c.buf = append(c.buf, kv.k...)
		c.buf = append(c.buf, `": `...)
		c.buf = strconv.AppendFloat(c.buf, kv.v, 'f', -1, 64)
	}
	for _, kv := range []struct {
		k string
		v int64
	}{{"S_bytes", pr.EagerLimit}, {"num_ranks", int64(v.p.NumRanks)},
		{"max_time_ns", v.res.MaxTime}, {"max_rank", int64(v.res.MaxRank)}, {"window_from_ns", v.from}} {
		c.buf = append(c.buf, `, "`...)
		c.buf = append(c.buf, kv.k...)
		c.buf = append(c.buf, `": `...)
		c.buf = strconv.AppendInt(c.buf, kv.v, 10)
	}
	c.buf = append(c.buf, `, "window_to_ns": `...)
	if v.to == 1<<63-1 {
		c.buf = append(c.buf, "null"...)
	} else {
		c.buf = strconv.AppendInt(c.buf, v.to, 10)
	}
	if len(pr.Ranges) > 0 {
		c.buf = append(c.buf, `, "params": `...)
		c.buf = appendString(c.buf, pr.String())
	}
	for _, kv := range v.setup {
		if kv[1] != "" {
			c.buf = append(c.buf, `, "`...)
			c.buf = append(c.buf, kv[0]...)
			c.buf = append(c.buf, `": `...)
			c.buf = appendString(c.buf, kv[1])
		}
	}
	c.buf = append(c.buf, `, "ranks": `...)
	c.buf = appendString(c.buf, rankList(v.ranks))
	c.buf = append(c.buf, "}\n"...)
}

// rankList writes ranks compactly: "0-15,32".
func rankList(ranks []int) string {
	var b []byte
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(ranks[i]), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(ranks[j]), 10)
		}
		i = j + 1
	}
	return string(b)
}

// appendMicros appends ns as µs with three decimals.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
