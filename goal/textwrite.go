package goal

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// TextWriter writes the GOAL text format one rank block at a time. Its
// output is read unchanged by LogGOPSim's txt2bin: every op is on its own
// line with its label, send and recv always carry their tag, cpu and nic
// are written when not 0, and the dependency statements of a rank follow
// its ops, grouped by predecessor in edge order, so that reading the file
// back gives the same schedule.
type TextWriter struct {
	bw       *bufio.Writer
	numRanks int
	next     int
	buf      []byte
	exc      []int32 // per op of the current block: index into Labels, or -1
}

// NewTextWriter starts a text schedule of numRanks ranks on w.
func NewTextWriter(w io.Writer, numRanks int) (*TextWriter, error) {
	t := &TextWriter{bw: bufio.NewWriterSize(w, 1<<16), numRanks: numRanks}
	t.buf = append(t.buf, "num_ranks "...)
	t.buf = strconv.AppendInt(t.buf, int64(numRanks), 10)
	t.buf = append(t.buf, '\n')
	_, err := t.bw.Write(t.buf)
	return t, err
}

// WriteRank writes the next rank block; blocks must come in order 0..N-1.
func (t *TextWriter) WriteRank(b *RankBlock) error {
	if int(b.Rank) != t.next || t.next >= t.numRanks {
		return fmt.Errorf("goal: text writer got rank %d, expected rank %d of %d", b.Rank, t.next, t.numRanks)
	}
	t.next++
	n := len(b.Ops)
	exc := slices.Grow(t.exc[:0], n)[:n]
	for i := range exc {
		exc[i] = -1
	}
	for i, l := range b.Labels {
		if l.Op < 0 || int(l.Op) >= n {
			return fmt.Errorf("goal: text writer: rank %d: label %q of op %d, which does not exist", b.Rank, l.Name, l.Op)
		}
		exc[l.Op] = int32(i)
	}
	t.exc = exc
	buf := t.buf[:0]
	buf = append(buf, "\nrank "...)
	buf = strconv.AppendInt(buf, int64(b.Rank), 10)
	buf = append(buf, " {\n"...)
	for i := range b.Ops {
		op := &b.Ops[i]
		if t.hasLabel(b, int32(i)) {
			buf = t.appendLabel(buf, b, int32(i))
			buf = append(buf, ": "...)
		}
		switch op.Kind {
		case Calc:
			buf = append(buf, "calc "...)
			buf = strconv.AppendUint(buf, op.Size, 10)
			if op.CPU != 0 {
				buf = append(buf, " cpu "...)
				buf = strconv.AppendUint(buf, uint64(op.CPU), 10)
			}
		case Send, Recv:
			if op.Kind == Send {
				buf = append(buf, "send "...)
			} else {
				buf = append(buf, "recv "...)
			}
			buf = strconv.AppendUint(buf, op.Size, 10)
			if op.Kind == Send {
				buf = append(buf, "b to "...)
			} else {
				buf = append(buf, "b from "...)
			}
			buf = strconv.AppendInt(buf, int64(op.Peer), 10)
			buf = append(buf, " tag "...)
			if op.Tag == AnyTag {
				buf = append(buf, "-1"...)
			} else {
				buf = strconv.AppendUint(buf, uint64(op.Tag), 10)
			}
			if op.CPU != 0 {
				buf = append(buf, " cpu "...)
				buf = strconv.AppendUint(buf, uint64(op.CPU), 10)
			}
			if op.NIC != 0 {
				buf = append(buf, " nic "...)
				buf = strconv.AppendUint(buf, uint64(op.NIC), 10)
			}
		default:
			return fmt.Errorf("goal: rank %d op %d: unknown kind %d", b.Rank, i, op.Kind)
		}
		buf = append(buf, '\n')
		if len(buf) > 1<<15 {
			if _, err := t.bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	for p := 0; p < n; p++ {
		for e := b.DepStart[p]; e < b.DepStart[p+1]; e++ {
			d := b.Deps[e]
			s := d.Succ()
			if !t.hasLabel(b, s) || !t.hasLabel(b, int32(p)) {
				return fmt.Errorf("goal: rank %d: op %d or op %d has a dependency but no label", b.Rank, s, p)
			}
			buf = t.appendLabel(buf, b, s)
			if d.Start() {
				buf = append(buf, " irequires "...)
			} else {
				buf = append(buf, " requires "...)
			}
			buf = t.appendLabel(buf, b, int32(p))
			buf = append(buf, '\n')
			if len(buf) > 1<<15 {
				if _, err := t.bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	buf = append(buf, "}\n"...)
	_, err := t.bw.Write(buf)
	t.buf = buf[:0]
	return err
}

// hasLabel reports whether op i of b has a label (canonical or stored).
func (t *TextWriter) hasLabel(b *RankBlock, i int32) bool {
	return t.exc[i] < 0 || b.Labels[t.exc[i]].Name != ""
}

// appendLabel appends op i's label: the stored exception, or CanonicalLabel
// written straight into buf.
func (t *TextWriter) appendLabel(buf []byte, b *RankBlock, i int32) []byte {
	if k := t.exc[i]; k >= 0 {
		return append(buf, b.Labels[k].Name...)
	}
	return strconv.AppendInt(append(buf, 'l'), int64(i)+1, 10)
}

// Close flushes the output; it is an error if not every rank was written.
// It does not close the underlying writer.
func (t *TextWriter) Close() error {
	if err := t.bw.Flush(); err != nil {
		return err
	}
	if t.next != t.numRanks {
		return fmt.Errorf("goal: text writer closed after %d of %d ranks", t.next, t.numRanks)
	}
	return nil
}

// WriteText writes a whole schedule in GOAL text form.
func WriteText(w io.Writer, s *Schedule) error {
	t, err := NewTextWriter(w, s.NumRanks)
	if err != nil {
		return err
	}
	var b RankBlock
	for r := 0; r < s.NumRanks; r++ {
		s.Block(r, &b)
		if err := t.WriteRank(&b); err != nil {
			return err
		}
	}
	return t.Close()
}
