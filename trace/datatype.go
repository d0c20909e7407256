package trace

import (
	"fmt"
	"slices"
)

// Combiner is the constructor of an MPI datatype as the tracer stores it
// in a type record (its own codes: the MPI_COMBINER_* values differ
// between MPI libraries).
type Combiner uint8

// The combiners, with the arguments TypeDef.Ints, Addrs and Types hold, in
// the order MPI_Type_get_contents gives them.
const (
	CombinerNamed         Combiner = iota // a predefined datatype: no arguments
	CombinerDup                           // Types: old
	CombinerContiguous                    // Ints: count; Types: old
	CombinerVector                        // Ints: count, blocklength, stride (in old's extents); Types: old
	CombinerHvector                       // Ints: count, blocklength; Addrs: stride (bytes); Types: old
	CombinerIndexed                       // Ints: count, blocklengths[count], displacements[count] (old's extents); Types: old
	CombinerHindexed                      // Ints: count, blocklengths[count]; Addrs: displacements (bytes); Types: old
	CombinerIndexedBlock                  // Ints: count, blocklength, displacements[count]; Types: old
	CombinerHindexedBlock                 // Ints: count, blocklength; Addrs: displacements; Types: old
	CombinerStruct                        // Ints: count, blocklengths[count]; Addrs: displacements; Types: one per block
	CombinerSubarray                      // Ints: ndims, sizes, subsizes, starts, order (0 C, 1 Fortran); Types: old
	CombinerDarray                        // Ints: size, rank, ndims, gsizes, distribs, dargs, psizes, order (0 C, 1 Fortran); Types: old
	CombinerResized                       // Addrs: lb, extent; Types: old
	CombinerOther                         // any other (Fortran's f90 types), or nested deeper than the tracer describes: no arguments
	numCombiners
)

var combinerNames = [numCombiners]string{"named", "dup", "contiguous", "vector", "hvector", "indexed", "hindexed",
	"indexed_block", "hindexed_block", "struct", "subarray", "darray", "resized", "other"}

func (c Combiner) String() string {
	if c < numCombiners {
		return combinerNames[c]
	}
	return fmt.Sprintf("Combiner(%d)", uint8(c))
}

// TypeDef describes an MPI datatype as a type record of the trace
// (format version 2) gives it: how it was constructed and from what.
type TypeDef struct {
	// ID is the id calls use (Datatype.ID); 0 for the datatypes a
	// description nests.
	ID       uint32
	Combiner Combiner
	// Size, LB and Extent are MPI_Type_size and MPI_Type_get_extent's, in
	// bytes.
	Size, LB, Extent int64
	Ints, Addrs      []int64
	Types            []*TypeDef

	elem     Layout // the layout of one element, once known
	elemDone bool
}

// Layout says where the data of some elements of a datatype lie in the
// user's buffer: in Blocks contiguous blocks of Block bytes each (the
// mean, if they differ), whose starts are Stride bytes apart (the mean
// distance, or that of the innermost non-contiguous dimension). One block
// is contiguous data (Stride 0); no block is no data.
type Layout struct {
	Blocks, Block, Stride int64
}

// Contiguous reports whether the data is one block (or none).
func (l Layout) Contiguous() bool { return l.Blocks <= 1 }

// dense reports whether elements of t with layout l abut: one block that
// fills the extent.
func (l Layout) dense(t *TypeDef) bool { return l.Blocks <= 1 && l.Block == t.Extent }

// Layout returns the layout of count elements of t, as an MPI_Send of
// count elements of t would read them. The rules, per combiner: vectors,
// hvectors and subarrays have the stride of their innermost
// non-contiguous level; indexed types and structs of contiguous parts
// have their blocks after merging adjacent ones, at the mean distance;
// resized and dup are their old type's; darray and other combiners are
// one block of Size bytes per element. count elements of a type whose
// element fills its extent are one block; otherwise elements are blocks
// Extent bytes apart (or, with several blocks each, keep the element's
// stride).
func (t *TypeDef) Layout(count int64) Layout {
	return countLayout(t, count)
}

func (t *TypeDef) element() Layout {
	if !t.elemDone {
		t.elem = t.computeElement()
		t.elemDone = true
	}
	return t.elem
}

func countLayout(t *TypeDef, count int64) Layout {
	e := t.element()
	switch {
	case count <= 0 || e.Blocks == 0:
		return Layout{}
	case count == 1:
		return e
	case e.dense(t):
		return Layout{Blocks: 1, Block: satMul(count, e.Block)}
	case e.Blocks == 1:
		return Layout{Blocks: count, Block: e.Block, Stride: abs64(t.Extent)}
	}
	return Layout{Blocks: satMul(count, e.Blocks), Block: e.Block, Stride: e.Stride}
}

// one is a layout of size bytes in one block (none for 0 bytes).
func one(size int64) Layout {
	if size <= 0 {
		return Layout{}
	}
	return Layout{Blocks: 1, Block: size}
}

func (t *TypeDef) computeElement() Layout {
	if t.Size <= 0 {
		return Layout{}
	}
	var old *TypeDef
	if len(t.Types) > 0 {
		old = t.Types[0]
	}
	in, ad := t.Ints, t.Addrs
	switch t.Combiner {
	case CombinerDup, CombinerResized:
		if old != nil {
			return old.element()
		}
	case CombinerContiguous:
		if old != nil && len(in) == 1 {
			return countLayout(old, int64(in[0]))
		}
	case CombinerVector:
		if old != nil && len(in) == 3 {
			return hvector(old, in[0], in[1], satMul(in[2], old.Extent))
		}
	case CombinerHvector:
		if old != nil && len(in) == 2 && len(ad) == 1 {
			return hvector(old, in[0], in[1], ad[0])
		}
	case CombinerIndexed:
		if old != nil && len(in) >= 1 && int64(len(in)) == 1+2*max(in[0], 0) {
			n := in[0]
			return indexed(t, in[1:1+n], scaledBy(in[1+n:], old.Extent), nil)
		}
	case CombinerHindexed:
		if old != nil && len(in) >= 1 && int64(len(in)) == 1+max(in[0], 0) && int64(len(ad)) == in[0] {
			return indexed(t, in[1:], ad, nil)
		}
	case CombinerIndexedBlock:
		if old != nil && len(in) >= 2 && int64(len(in)) == 2+max(in[0], 0) {
			return indexed(t, repeat(in[1], in[0]), scaledBy(in[2:], old.Extent), nil)
		}
	case CombinerHindexedBlock:
		if old != nil && len(in) == 2 && int64(len(ad)) == max(in[0], 0) {
			return indexed(t, repeat(in[1], in[0]), ad, nil)
		}
	case CombinerStruct:
		if len(in) >= 1 && int64(len(in)) == 1+max(in[0], 0) && int64(len(ad)) == in[0] && int64(len(t.Types)) == in[0] {
			return indexed(t, in[1:], ad, t.Types)
		}
	case CombinerSubarray:
		if old != nil && len(in) >= 2 && int64(len(in)) == 2+3*max(in[0], 0) {
			return subarray(t, old)
		}
	}
	return one(t.Size)
}

func hvector(old *TypeDef, count, blocklen, stride int64) Layout {
	in := countLayout(old, blocklen)
	switch {
	case count <= 0 || in.Blocks == 0:
		return Layout{}
	case count == 1:
		return in
	case in.Blocks == 1 && abs64(stride) == in.Block && in.Block == satMul(blocklen, old.Extent):
		return Layout{Blocks: 1, Block: satMul(count, in.Block)}
	case in.Blocks == 1:
		return Layout{Blocks: count, Block: in.Block, Stride: abs64(stride)}
	}
	return Layout{Blocks: satMul(count, in.Blocks), Block: in.Block, Stride: in.Stride}
}

// indexed is the layout of blocks of lens[i] elements at byte
// displacements disps[i], of old types[i] (types nil: t.Types[0] for
// every block).
func indexed(t *TypeDef, lens, disps []int64, types []*TypeDef) Layout {
	type span struct{ start, n int64 }
	var spans []span
	for i := range lens {
		old := t.Types[0]
		if types != nil {
			old = types[i]
		}
		if lens[i] <= 0 || old.Size <= 0 {
			continue
		}
		l := countLayout(old, lens[i])
		if !l.Contiguous() {
			return l // a block with holes of its own: its layout
		}
		spans = append(spans, span{satAdd(disps[i], old.LB), l.Block})
	}
	if len(spans) == 0 {
		return Layout{}
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start == satAdd(last.start, last.n) {
			last.n = satAdd(last.n, s.n)
			continue
		}
		merged = append(merged, s)
	}
	var total int64
	for _, s := range merged {
		total = satAdd(total, s.n)
	}
	n := int64(len(merged))
	if n == 1 {
		return one(total)
	}
	return Layout{Blocks: n, Block: total / n, Stride: (merged[n-1].start - merged[0].start) / (n - 1)}
}

// subarray is the layout of a subarray of old elements: the innermost
// dimensions that the subarray spans whole, and the first it does not,
// make a block; the stride is that dimension's step.
func subarray(t *TypeDef, old *TypeDef) Layout {
	e := old.element()
	if !e.dense(old) {
		return e
	}
	nd := int(t.Ints[0])
	sizes, subs := t.Ints[1:1+nd], t.Ints[1+nd:1+2*nd]
	fortran := t.Ints[len(t.Ints)-1] == 1
	total, block, full := int64(1), int64(1), int64(1)
	stride := int64(0)
	for k := 0; k < nd; k++ {
		d := nd - 1 - k // C order: the last dimension varies fastest
		if fortran {
			d = k
		}
		if sizes[d] <= 0 || subs[d] <= 0 {
			return Layout{}
		}
		total = satMul(total, subs[d])
		if stride != 0 {
			continue
		}
		block = satMul(block, subs[d])
		if subs[d] < sizes[d] {
			stride = satMul(full, sizes[d])
		}
		full = satMul(full, sizes[d])
	}
	blocks := total / block
	if blocks <= 1 || stride == 0 {
		return one(satMul(total, old.Size))
	}
	return Layout{Blocks: blocks, Block: satMul(block, old.Size), Stride: satMul(stride, old.Extent)}
}

func scaledBy(x []int64, by int64) []int64 {
	out := make([]int64, len(x))
	for i, v := range x {
		out[i] = satMul(v, by)
	}
	return out
}

func repeat(v, n int64) []int64 {
	out := make([]int64, max(n, 0))
	for i := range out {
		out[i] = v
	}
	return out
}

func abs64(x int64) int64 {
	if x < 0 {
		if x == -x { // MinInt64
			return 1<<63 - 1
		}
		return -x
	}
	return x
}

// satMul and satAdd saturate instead of wrapping: a damaged or hostile
// description gives a large layout, never a negative one.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	const lim = 1 << 62
	if abs64(a) > lim/abs64(b) {
		if (a < 0) != (b < 0) {
			return -lim
		}
		return lim
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	const lim = 1 << 62
	s := a + b
	switch {
	case s > lim || (a > 0 && b > 0 && s < 0):
		return lim
	case s < -lim || (a < 0 && b < 0 && s > 0):
		return -lim
	}
	return s
}

// String is "size/extent", and for a derived datatype "#ID" and the
// stride: "64/7176#3:stride=512".
func (d Datatype) String() string {
	s := fmt.Sprintf("%d/%d", d.Size, d.Extent)
	if d.ID != 0 {
		s += fmt.Sprintf("#%d", d.ID)
	}
	if d.Stride != 0 {
		s += fmt.Sprintf(":stride=%d", d.Stride)
	}
	return s
}

// strideOf is the stride of count elements of def, 0 if contiguous.
func strideOf(def *TypeDef, count int64) int64 {
	l := def.Layout(max(count, 1))
	if l.Contiguous() {
		return 0
	}
	return max(l.Stride, 1)
}
