package trace

import "io"

// inbufSize is the size of a Reader's input buffer.
const inbufSize = 64 << 10

// inbuf is a Reader's input buffer. It does what a bufio.Reader would,
// but keeps the buffered bytes in reach, so that Reader.uv decodes a
// varint from the slice and Reader.byte1 takes a byte without a call:
// byte by byte through bufio.Reader.ReadByte, decoding took 20 ns a byte
// of a trace (BenchmarkReader).
type inbuf struct {
	rd       io.Reader
	buf      []byte
	pos, end int   // buf[pos:end] is buffered
	err      error // the error the last read returned, given once the buffer is empty
}

// fill moves the buffered bytes to the front of buf and reads more after
// them. It returns an error only when it read nothing.
func (b *inbuf) fill() error {
	if b.err != nil {
		return b.err
	}
	if b.pos > 0 {
		b.end = copy(b.buf, b.buf[b.pos:b.end])
		b.pos = 0
	}
	for range 100 { // as bufio: a reader that keeps returning nothing is broken
		n, err := b.rd.Read(b.buf[b.end:])
		if n < 0 || n > len(b.buf)-b.end {
			b.err = io.ErrShortBuffer
			return b.err
		}
		b.end += n
		if err != nil {
			b.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	b.err = io.ErrNoProgress
	return b.err
}

// ReadByte returns the next byte, or the read error (io.EOF at the end).
func (b *inbuf) ReadByte() (byte, error) {
	if b.pos == b.end {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	c := b.buf[b.pos]
	b.pos++
	return c, nil
}

// Read reads up to len(p) bytes, from the buffer when it holds some.
func (b *inbuf) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.pos == b.end {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.buf[b.pos:b.end])
	b.pos += n
	return n, nil
}
