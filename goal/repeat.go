package goal

import (
	"bytes"
	"hash/maphash"
)

// A binary schedule stores peers relative to the rank (see the top of
// binary.go), so ranks that do the same thing have rank blocks equal byte
// for byte: the LAMMPS trace of make bench extrapolated ×1024 has 128
// distinct blocks among its 4,096 ranks, ×4096 has 164 among 16,384. A
// reader that remembers the blocks it decoded can tell a repeat from its
// bytes, without decoding it, and a user that keeps what it derived from
// a block (sim's streamed programs) can then reuse it.

// repeats are the blocks a Reader remembers, by the hash of their bytes.
type repeats struct {
	left int64 // bytes that may still be remembered
	seed maphash.Seed
	seen map[uint64][]seenBlock
}

type seenBlock struct {
	rank int32
	raw  []byte
}

// RememberBlocks makes NextRepeat recognise rank blocks equal byte for
// byte to an earlier rank's, remembering the bytes of up to budget bytes
// of distinct blocks (the first ones read).
func (r *Reader) RememberBlocks(budget int64) {
	r.rep = &repeats{left: budget, seed: maphash.MakeSeed(), seen: map[uint64][]seenBlock{}}
}

// NextRepeat is Next, but a rank block equal byte for byte to the block
// of an earlier rank q that the reader remembers (RememberBlocks) is not
// decoded: b is reset to its rank, with no ops, and same is q; q's block,
// decoded, is the same with every peer p of rank q being p+rank-q modulo
// the number of ranks. Otherwise b is decoded, same is -1 and kept says
// whether the reader remembers the block, so that later ranks may repeat
// it. Without RememberBlocks it is Next, with same -1 and kept false.
func (r *Reader) NextRepeat(b *RankBlock) (same int32, kept bool, err error) {
	if r.err != nil || r.rep == nil {
		return -1, false, r.Next(b)
	}
	if r.left == 0 {
		if err := r.readChunk(); err != nil {
			r.err = err
			return -1, false, err
		}
	}
	start := r.pos
	end, _, _, ok := skimBlock(r.raw, start)
	if !ok || r.left == 1 && end != len(r.raw) {
		// Malformed: the decoder says what is wrong.
		return -1, false, r.Next(b)
	}
	raw := r.raw[start:end]
	h := maphash.Bytes(r.rep.seed, raw)
	for _, sb := range r.rep.seen[h] {
		if bytes.Equal(sb.raw, raw) {
			b.Reset(int32(r.next))
			r.pos = end
			r.next++
			r.left--
			return sb.rank, false, nil
		}
	}
	if err := r.Next(b); err != nil {
		return -1, false, err
	}
	if n := int64(len(raw)); n <= r.rep.left {
		r.rep.left -= n
		r.rep.seen[h] = append(r.rep.seen[h], seenBlock{rank: b.Rank, raw: bytes.Clone(raw)})
		kept = true
	}
	return -1, kept, nil
}
