package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Writer writes a trace file in the tracer's format: for tests and for
// synthetic traces (a converter's test cases), since real traces come from
// the tracer. It writes what it is given; Reader checks it.
type Writer struct {
	version int
	w       *bufio.Writer
	buf     []byte
	prev    int64
	records uint64
	err     error
	closed  bool
}

// NewWriter writes the magic, version and header h to w: version
// h.Version, or Version if it is 0. A version 1 file has no datatype
// descriptions: WriteType fails and calls' Datatype.ID are not written.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	v := h.Version
	if v == 0 {
		v = Version
	}
	if v < MinVersion || v > Version {
		return nil, fmt.Errorf("trace: writing format version %d; this writer writes versions %d through %d", v, MinVersion, Version)
	}
	tw := &Writer{version: v, w: bufio.NewWriter(w), prev: h.T0}
	b := append([]byte(nil), Magic...)
	b = binary.AppendUvarint(b, uint64(v))
	b = binary.AppendUvarint(b, uint64(h.Rank))
	b = binary.AppendUvarint(b, uint64(h.Size))
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(h.T0))
	b = binary.AppendUvarint(b, uint64(h.Wall0))
	b = binary.AppendUvarint(b, uint64(h.Thread))
	b = binary.AppendUvarint(b, uint64(h.PID))
	b = appendString(b, h.Host)
	b = appendString(b, h.Library)
	b = appendString(b, h.Command)
	if err := tw.write(b); err != nil {
		return nil, err
	}
	return tw, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendZigzag(b []byte, v int64) []byte {
	return binary.AppendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("trace: write after Close")
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("trace: writing: %w", err)
	}
	return w.err
}

// WriteComm writes the definition of communicator c.
func (w *Writer) WriteComm(c *Comm) error {
	b := append(w.buf[:0], recComm)
	b = binary.AppendUvarint(b, uint64(c.ID))
	var flags uint64
	if c.Inter() {
		flags |= cflagInter
	}
	if c.Local {
		flags |= cflagLocal
	}
	world := true
	for i, m := range c.Members {
		if m != int32(i) {
			world = false
		}
	}
	if world {
		flags |= cflagWorld
	}
	b = binary.AppendUvarint(b, flags)
	if world {
		b = binary.AppendUvarint(b, uint64(len(c.Members)))
	} else {
		b = appendMembers(b, c.Members)
	}
	if c.Inter() {
		b = appendMembers(b, c.Remote)
	}
	w.buf = b
	w.records++
	return w.write(b)
}

func appendMembers(b []byte, m []int32) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for i, x := range m {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(x))
		} else {
			b = appendZigzag(b, int64(x)-int64(m[i-1])-1)
		}
	}
	return b
}

// WriteCall writes call record c (a flush record for FuncFlush). Fields
// that are None, zero or empty are left out, Polls 1 too; Completion's Func
// and Comm and a send's Peer, Tag and Bytes are not stored (the Reader
// takes them from the call that created the request).
func (w *Writer) WriteCall(c *Call) error {
	b := append(w.buf[:0], byte(c.Func))
	if c.Func == FuncFlush {
		b = appendZigzag(b, c.Start-w.prev)
		b = binary.AppendUvarint(b, uint64(c.End-c.Start))
		w.prev = c.Start
		w.buf = b
		w.records++
		return w.write(b)
	}
	var m uint64
	set := func(bit uint64, on bool) {
		if on {
			m |= bit
		}
	}
	set(fComm, c.Comm != None)
	set(fPeer, c.Peer != None)
	set(fTag, c.Tag != None)
	set(fBytes, c.Bytes != 0)
	set(fType, c.Type != Datatype{})
	set(fRequest, c.Request != 0)
	set(fDone, len(c.Done) > 0)
	set(fRoot, c.Root != None)
	set(fPolls, c.Polls > 1)
	set(fFlag, c.Flag)
	set(fRPeer, c.RecvPeer != None)
	set(fRTag, c.RecvTag != None)
	set(fRBytes, c.RecvBytes != 0)
	set(fRType, c.RecvType != Datatype{})
	set(fCounts, len(c.Counts) > 0)
	set(fRCounts, len(c.RecvCounts) > 0)
	set(fNewComm, c.NewComm != None)
	set(fErr, c.Err != 0)
	if w.version >= 2 {
		set(fDType, c.Type.ID != 0)
		set(fRDType, c.RecvType.ID != 0)
	}
	b = binary.AppendUvarint(b, m)
	b = appendZigzag(b, c.Start-w.prev)
	w.prev = c.Start
	b = binary.AppendUvarint(b, uint64(c.End-c.Start))
	if m&fComm != 0 {
		b = binary.AppendUvarint(b, uint64(c.Comm))
	}
	if m&fPeer != 0 {
		b = appendZigzag(b, int64(c.Peer))
	}
	if m&fTag != 0 {
		b = appendZigzag(b, int64(c.Tag))
	}
	if m&fBytes != 0 {
		b = binary.AppendUvarint(b, uint64(c.Bytes))
	}
	if m&fType != 0 {
		b = binary.AppendUvarint(b, uint64(c.Type.Size))
		b = appendZigzag(b, c.Type.Extent)
	}
	if m&fRequest != 0 {
		b = binary.AppendUvarint(b, c.Request)
	}
	if m&fDone != 0 {
		b = binary.AppendUvarint(b, uint64(len(c.Done)))
		for _, d := range c.Done {
			b = binary.AppendUvarint(b, d.Request)
			f := byte(d.Kind) & doneKind
			if d.Cancelled {
				f |= doneCancelled
			}
			status := d.Kind == ReqRecv && !d.Cancelled
			if status {
				f |= doneStatus
			}
			b = append(b, f)
			if status {
				b = appendZigzag(b, int64(d.Peer))
				b = appendZigzag(b, int64(d.Tag))
				b = binary.AppendUvarint(b, uint64(d.Bytes))
			}
		}
	}
	if m&fRoot != 0 {
		b = appendZigzag(b, int64(c.Root))
	}
	if m&fPolls != 0 {
		b = binary.AppendUvarint(b, uint64(c.Polls))
	}
	if m&fRPeer != 0 {
		b = appendZigzag(b, int64(c.RecvPeer))
	}
	if m&fRTag != 0 {
		b = appendZigzag(b, int64(c.RecvTag))
	}
	if m&fRBytes != 0 {
		b = binary.AppendUvarint(b, uint64(c.RecvBytes))
	}
	if m&fRType != 0 {
		b = binary.AppendUvarint(b, uint64(c.RecvType.Size))
		b = appendZigzag(b, c.RecvType.Extent)
	}
	for _, v := range [][]int64{c.Counts, c.RecvCounts} {
		if len(v) == 0 {
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			b = binary.AppendUvarint(b, uint64(x))
		}
	}
	if m&fNewComm != 0 {
		b = binary.AppendUvarint(b, uint64(c.NewComm))
	}
	if m&fErr != 0 {
		b = binary.AppendUvarint(b, uint64(c.Err))
	}
	if m&fDType != 0 {
		b = binary.AppendUvarint(b, uint64(c.Type.ID))
	}
	if m&fRDType != 0 {
		b = binary.AppendUvarint(b, uint64(c.RecvType.ID))
	}
	w.buf = b
	w.records++
	return w.write(b)
}

// WriteType writes the description of derived datatype t under t.ID
// (version 2 and up). Its Stride fields are the reader's to compute.
func (w *Writer) WriteType(t *TypeDef) error {
	if w.version < 2 {
		return fmt.Errorf("trace: a datatype description in a version %d file", w.version)
	}
	b := append(w.buf[:0], recType)
	b = binary.AppendUvarint(b, uint64(t.ID))
	b = appendTypeDesc(b, t)
	w.buf = b
	w.records++
	return w.write(b)
}

func appendTypeDesc(b []byte, t *TypeDef) []byte {
	b = binary.AppendUvarint(b, uint64(t.Combiner))
	b = binary.AppendUvarint(b, uint64(t.Size))
	b = appendZigzag(b, t.LB)
	b = appendZigzag(b, t.Extent)
	if t.Combiner == CombinerNamed {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(t.Ints)))
	for _, v := range t.Ints {
		b = appendZigzag(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(t.Addrs)))
	for _, v := range t.Addrs {
		b = appendZigzag(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(t.Types)))
	for _, sub := range t.Types {
		b = appendTypeDesc(b, sub)
	}
	return b
}

// Close writes the end record with reason and flushes; it does not close
// the underlying writer.
func (w *Writer) Close(reason EndReason) error {
	b := append(w.buf[:0], recEnd)
	b = binary.AppendUvarint(b, w.records)
	b = binary.AppendUvarint(b, uint64(reason))
	if err := w.write(b); err != nil {
		return err
	}
	w.closed = true
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("trace: writing: %w", err)
		return w.err
	}
	return nil
}
