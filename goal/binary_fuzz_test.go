package goal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"
)

// readBinarySequential reads a binary schedule rank block by rank block
// with a Reader, the reference for ReadBinary's parallel decoding.
func readBinarySequential(r io.Reader) (*Schedule, error) {
	br, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	h := br.Header()
	s, err := collect(br.Next, func() int { return h.NumRanks }, "goal: binary schedule")
	if err != nil {
		return nil, err
	}
	s.NumCPUs, s.NumNICs = h.NumCPUs, h.NumNICs
	return s, nil
}

// readBinaryRepeats reads a binary schedule with a Reader that remembers
// blocks (NextRepeat), making each repeat from the earlier rank's block
// with its peers moved, as a user of NextRepeat may.
func readBinaryRepeats(r io.Reader) (*Schedule, error) {
	br, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	br.RememberBlocks(1 << 20)
	h := br.Header()
	kept := map[int32]*RankBlock{}
	next := func(b *RankBlock) error {
		same, keep, err := br.NextRepeat(b)
		if err != nil {
			return err
		}
		if same >= 0 {
			q := kept[same]
			if q == nil {
				return fmt.Errorf("rank %d repeats rank %d, which was not kept", b.Rank, same)
			}
			b.Ops = append(b.Ops, q.Ops...)
			b.DepStart = append(b.DepStart, q.DepStart...)
			b.Deps = append(b.Deps, q.Deps...)
			b.Labels = append(b.Labels, q.Labels...)
			n := int64(h.NumRanks)
			for i := range b.Ops {
				if o := &b.Ops[i]; o.Kind != Calc && o.Peer != AnySource {
					o.Peer = int32(((int64(o.Peer)-int64(same)+int64(b.Rank))%n + n) % n)
				}
			}
		}
		if keep {
			c := &RankBlock{Rank: b.Rank}
			c.Ops, c.DepStart = append(c.Ops, b.Ops...), append(c.DepStart, b.DepStart...)
			c.Deps, c.Labels = append(c.Deps, b.Deps...), append(c.Labels, b.Labels...)
			kept[b.Rank] = c
		}
		return nil
	}
	s, err := collect(next, func() int { return h.NumRanks }, "goal: binary schedule")
	if err != nil {
		return nil, err
	}
	s.NumCPUs, s.NumNICs = h.NumCPUs, h.NumNICs
	return s, nil
}

// readBinaryBlockRepeats reads a binary schedule with
// ReadBinaryBlocksRepeats, making each repeated block from its leader's
// as a caller may.
func readBinaryBlockRepeats(r io.Reader) (*Schedule, error) {
	var sb scheduleBuilder
	var mu sync.Mutex
	repeat := func(_ int, x BlockRepeat) {
		s := sb.s
		n := int(s.RankStart[x.Same+1]) - x.SameOp
		copy(s.Ops[x.Op:x.Op+n], s.Ops[x.SameOp:x.SameOp+n])
		for i := range n {
			o := &s.Ops[x.Op+i]
			if o.Kind != Calc && o.Peer != AnySource {
				nr := int64(s.NumRanks)
				o.Peer = int32(((int64(o.Peer)-int64(x.Same)+int64(x.Rank))%nr + nr) % nr)
			}
			s.DepStart[x.Op+i+1] = s.DepStart[x.SameOp+i+1] - int32(x.SameEdge) + int32(x.Edge)
		}
		ne := int(s.DepStart[x.SameOp+n]) - x.SameEdge
		copy(s.Deps[x.Edge:x.Edge+ne], s.Deps[x.SameEdge:x.SameEdge+ne])
		s.RankStart[x.Rank+1] = int32(x.Op + n)
		mu.Lock()
		for i := range n {
			if l, ok := s.Labels[int32(x.SameOp+i)]; ok {
				s.Labels[int32(x.Op+i)] = l
			}
		}
		mu.Unlock()
	}
	if err := ReadBinaryBlocksRepeats(r, sb.alloc, sb.visit, repeat); err != nil {
		return nil, err
	}
	return sb.s, nil
}

// FuzzReadBinary checks that ReadBinary never panics, that it fails only
// with errors that wrap ErrBinary, that it agrees with a Reader (the same
// schedule or the same error), and so does a Reader's NextRepeat, and that what it reads survives
// WriteBinary and ReadBinary unchanged.
func FuzzReadBinary(f *testing.F) {
	for _, tc := range binSmall(f) {
		f.Add(binEncode(f, tc.s, 0))
		f.Add(binEncode(f, tc.s, 16))
	}
	small, _ := binSmallFile(f)
	f.Add(small)
	f.Add(binEncode(f, binDissemination(f, 16, 1024), 64))
	f.Add([]byte{})
	f.Add(BinaryMagic)
	f.Add([]byte("num_ranks 1\nrank 0 {\n  l1: calc 10\n}\n"))
	f.Add(binFile(f, 2, [4]uint64{1, 1, 1, 0}))
	f.Add(binFile(f, 1, [4]uint64{2, 1, 1, 0}, binChunk{0, 2, binUV(1, 0xff, 1, 1, 1, 0, 0), nil}, binChunk{}))
	f.Add(binFile(f, 1, [4]uint64{1, 1, 1, 0}, binChunk{0, 1, nil, []byte{0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 1, 2, 3}}, binChunk{}))
	garbage := append([]byte(nil), BinaryMagic...)
	garbage = binary.AppendUvarint(garbage, BinaryVersion)
	f.Add(append(garbage, 3, 1, 1, 0, 9, 0, 3, 0xde, 0xad, 0xbe, 0xef, 0x12, 0x34, 0x56, 0x78, 0x9a, 0))

	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadBinary(bytes.NewReader(data))
		ref, refErr := readBinarySequential(bytes.NewReader(data))
		if fmt.Sprint(err) != fmt.Sprint(refErr) || !reflect.DeepEqual(s, ref) {
			t.Fatalf("ReadBinary: %v\n%+v\nReader: %v\n%+v", err, s, refErr, ref)
		}
		blk, blkErr := readBinaryBlockRepeats(bytes.NewReader(data))
		if fmt.Sprint(blkErr) != fmt.Sprint(err) || !reflect.DeepEqual(blk, s) {
			t.Fatalf("ReadBinaryBlocksRepeats: %v\n%+v\nReadBinary: %v\n%+v", blkErr, blk, err, s)
		}
		rep, repErr := readBinaryRepeats(bytes.NewReader(data))
		if fmt.Sprint(repErr) != fmt.Sprint(refErr) || !reflect.DeepEqual(rep, ref) {
			t.Fatalf("NextRepeat: %v\n%+v\nReader: %v\n%+v", repErr, rep, refErr, ref)
		}
		if err == nil { // the decoder checks what Validate does, faster
			var b RankBlock
			for r := 0; r < s.NumRanks; r++ {
				s.Block(r, &b)
				if _, berr := b.Validate(s.NumRanks, nil); berr != nil {
					t.Fatalf("rank %d read, but invalid: %v", r, berr)
				}
			}
		}
		if err != nil {
			if !errors.Is(err, ErrBinary) {
				t.Fatalf("error %q does not wrap ErrBinary", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteBinary(&buf, s); err != nil {
			t.Fatalf("writing a schedule just read: %v", err)
		}
		s2, err := ReadBinary(&buf)
		if err != nil {
			t.Fatalf("reading a schedule just written: %v", err)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Fatalf("write and read changed the schedule:\n%+v\n%+v", s, s2)
		}
	})
}
