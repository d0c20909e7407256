package sim

// The units of a streamed program, each kept once.
//
// A schedule made of copies (gopsim extrapolate, or a collective whose
// ranks do alike) has few distinct units once peers are written relative
// to the own rank (encodeUnit): a 4-rank LAMMPS trace extrapolated to
// 4,096 ranks has 158,469 units of 128 ops but 3,686 distinct ones, 13 MB.
// The store keeps each distinct unit once, uncompressed, in memory, up to
// a budget (StreamOptions.StoreBytes); a unit not seen before once the
// budget is spent goes to the spill file, compressed, as every unit did
// before. Loading a unit kept in memory is then a copy of its columns into
// the records: no read from the file, no decompression.

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/klauspost/compress/s2"
)

// DefaultStoreBytes is the memory a streamed program keeps distinct units
// in when StreamOptions.StoreBytes is 0.
const DefaultStoreBytes = 256 << 20

// unitRef refers to a stored unit: below inFile, a unit kept in memory
// (an index into unitStore.mem); with inFile set, the index of a unit in
// the spill file (unitStore.foff).
type unitRef = uint32

const inFile unitRef = 1 << 31

// unitStore holds the distinct units of a streamed program.
type unitStore struct {
	seed   maphash.Seed
	seen   map[uint64]unitRef // hash of a unit kept in memory → the unit
	mem    [][]byte           // units kept in memory, slices of chunks
	chunk  []byte             // the free end of the current chunk
	budget int64              // bytes left for units in memory
	used   int64              // bytes of units in memory

	w    io.Writer // the spill file, buffered
	foff []int64   // len units in the file + 1: unit i is bytes foff[i]:foff[i+1]
	comp []byte
}

// storeChunk is how much memory the store allocates at a time.
const storeChunk = 4 << 20

func newUnitStore(budget int64, w io.Writer) *unitStore {
	return &unitStore{seed: maphash.MakeSeed(), seen: make(map[uint64]unitRef), budget: budget, w: w, foff: []int64{0}}
}

// put stores the unit raw (which the caller may reuse) and returns its
// reference: that of an equal unit stored before, if there is one in
// memory.
func (s *unitStore) put(raw []byte) (unitRef, error) {
	h := maphash.Bytes(s.seed, raw)
	if ref, ok := s.seen[h]; ok && bytes.Equal(s.mem[ref], raw) {
		return ref, nil
	}
	if int64(len(raw)) <= s.budget && len(s.mem) < int(inFile) {
		if len(raw) > len(s.chunk) {
			s.chunk = make([]byte, max(storeChunk, len(raw)))
			hugePages(s.chunk) // a run reads units in no order
		}
		b := s.chunk[:len(raw):len(raw)]
		copy(b, raw)
		s.chunk = s.chunk[len(raw):]
		s.budget -= int64(len(raw))
		s.used += int64(len(raw))
		ref := unitRef(len(s.mem))
		s.mem = append(s.mem, b)
		if _, ok := s.seen[h]; !ok {
			s.seen[h] = ref
		}
		return ref, nil
	}
	s.comp = s2.Encode(s.comp[:cap(s.comp)], raw)
	if _, err := s.w.Write(s.comp); err != nil {
		return 0, fmt.Errorf("sim: writing the spill file: %w", err)
	}
	n := len(s.foff) - 1
	if n >= int(inFile) {
		return 0, fmt.Errorf("sim: more than %d units in the spill file", int(inFile))
	}
	s.foff = append(s.foff, s.foff[n]+int64(len(s.comp)))
	return inFile | unitRef(n), nil
}

// sealed drops what only put needs.
func (s *unitStore) sealed() {
	s.seen, s.chunk, s.comp = nil, nil, nil
}

// fileBytes is the size of the spill file.
func (s *unitStore) fileBytes() int64 { return s.foff[len(s.foff)-1] }
