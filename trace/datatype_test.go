package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

var (
	tDouble = &TypeDef{Combiner: CombinerNamed, Size: 8, Extent: 8}
	tInt    = &TypeDef{Combiner: CombinerNamed, Size: 4, Extent: 4}
)

// derived builds a description with its size and extent given.
func derived(c Combiner, size, extent int64, ints, addrs []int64, types ...*TypeDef) *TypeDef {
	return &TypeDef{Combiner: c, Size: size, Extent: extent, Ints: ints, Addrs: addrs, Types: types}
}

func TestTypeDefLayout(t *testing.T) {
	column := derived(CombinerVector, 2048*8, (2047*128+1)*8, []int64{2048, 1, 128}, nil, tDouble)
	pairs := derived(CombinerContiguous, 16, 16, []int64{2}, nil, tDouble)
	tests := []struct {
		name  string
		t     *TypeDef
		count int64
		want  Layout
	}{
		{"named", tDouble, 10, Layout{1, 80, 0}},
		{"contiguous", pairs, 3, Layout{1, 48, 0}},
		{"vector column", column, 1, Layout{2048, 8, 1024}},
		{"two columns: the element's stride", column, 2, Layout{4096, 8, 1024}},
		{"vector of blocks", derived(CombinerVector, 64*16, 0, []int64{64, 2, 10}, nil, tDouble), 1, Layout{64, 16, 80}},
		{"vector without gaps", derived(CombinerVector, 64*16, 64*16, []int64{64, 2, 2}, nil, tDouble), 1, Layout{1, 1024, 0}},
		{"one-block vector", derived(CombinerVector, 16, 16, []int64{1, 2, 10}, nil, tDouble), 1, Layout{1, 16, 0}},
		{"hvector", derived(CombinerHvector, 32*4, 0, []int64{32, 1}, []int64{100}, tInt), 1, Layout{32, 4, 100}},
		{"negative hvector stride", derived(CombinerHvector, 32*4, 0, []int64{32, 1}, []int64{-100}, tInt), 1, Layout{32, 4, 100}},
		{"vector of pairs", derived(CombinerVector, 10*16, 0, []int64{10, 1, 4}, nil, pairs), 1, Layout{10, 16, 64}},
		{"vector of columns: the inner stride", derived(CombinerVector, 3*2048*8, 0, []int64{3, 1, 2}, nil, column), 1, Layout{3 * 2048, 8, 1024}},
		{"resized double", derived(CombinerResized, 8, 24, nil, []int64{0, 24}, tDouble), 5, Layout{5, 8, 24}},
		{"resized column: the column's", derived(CombinerResized, 2048*8, 8, nil, []int64{0, 8}, column), 1, Layout{2048, 8, 1024}},
		{"dup", derived(CombinerDup, 2048*8, 0, nil, nil, column), 1, Layout{2048, 8, 1024}},
		{"indexed regular", derived(CombinerIndexed, 3*16, 0, []int64{3, 2, 2, 2, 0, 10, 20}, nil, tDouble), 1, Layout{3, 16, 80}},
		{"indexed merges adjacent blocks", derived(CombinerIndexed, 3*16, 0, []int64{3, 2, 2, 2, 0, 2, 20}, nil, tDouble), 1, Layout{2, 24, 160}},
		{"indexed one block", derived(CombinerIndexed, 32, 32, []int64{2, 2, 2, 0, 2}, nil, tDouble), 1, Layout{1, 32, 0}},
		{"indexed_block", derived(CombinerIndexedBlock, 4*8, 0, []int64{4, 1, 0, 4, 8, 12}, nil, tDouble), 1, Layout{4, 8, 32}},
		{"hindexed", derived(CombinerHindexed, 2*8, 0, []int64{2, 1, 1}, []int64{0, 512}, tDouble), 1, Layout{2, 8, 512}},
		{"hindexed_block", derived(CombinerHindexedBlock, 3*8, 0, []int64{3, 1}, []int64{0, 100, 200}, tDouble), 1, Layout{3, 8, 100}},
		{"struct with a gap", derived(CombinerStruct, 12, 16, []int64{2, 1, 1}, []int64{0, 8}, tDouble, tInt), 1, Layout{1, 12, 0}},
		{"struct with a gap, twice", derived(CombinerStruct, 12, 16, []int64{2, 1, 1}, []int64{0, 8}, tDouble, tInt), 2, Layout{2, 12, 16}},
		{"struct of two distant blocks", derived(CombinerStruct, 12, 0, []int64{2, 1, 1}, []int64{0, 64}, tDouble, tInt), 1, Layout{2, 6, 64}},
		{"subarray C: a column block", derived(CombinerSubarray, 10*2*8, 0, []int64{2, 100, 50, 10, 2, 0, 0, 0}, nil, tDouble), 1, Layout{10, 16, 400}},
		{"subarray C: whole rows", derived(CombinerSubarray, 10*50*8, 0, []int64{2, 100, 50, 10, 50, 5, 0, 0}, nil, tDouble), 1, Layout{1, 4000, 0}},
		{"subarray Fortran: a row block", derived(CombinerSubarray, 2*10*8, 0, []int64{2, 50, 100, 2, 10, 0, 0, 1}, nil, tDouble), 1, Layout{10, 16, 400}},
		{"subarray 3-D face", derived(CombinerSubarray, 8*8*8, 0, []int64{3, 8, 8, 8, 8, 8, 1, 0, 0, 3, 0}, nil, tDouble), 1, Layout{64, 8, 64}},
		{"darray: one block", derived(CombinerDarray, 800, 8000, []int64{4, 0, 1, 1000, 0, 0, 4, 0}, nil, tDouble), 1, Layout{1, 800, 0}},
		{"malformed vector: one block", derived(CombinerVector, 64, 128, []int64{8}, nil, tDouble), 1, Layout{1, 64, 0}},
		{"no data", derived(CombinerContiguous, 0, 0, []int64{0}, nil, tDouble), 1, Layout{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.Layout(tc.count); got != tc.want {
				t.Errorf("Layout(%d) = %+v, want %+v", tc.count, got, tc.want)
			}
		})
	}
}

// typedSample is a version 2 trace with the column type of
// examples/mpi/strided: Type_commit, an Isend of a column, a Sendrecv of
// columns, a Bcast of 2 columns and Type_free.
func typedSample() (Header, []*Comm, []*TypeDef, []Call) {
	h := testHeader(0, 2)
	comms := []*Comm{{ID: 0, Members: []int32{0, 1}}, {ID: 1, Members: []int32{0}}}
	column := derived(CombinerVector, 2048*8, (2047*128+1)*8, []int64{2048, 1, 128}, nil, tDouble)
	column.ID = 1
	ct := Datatype{Size: column.Size, Extent: column.Extent, ID: 1, Stride: 1024}
	var calls []Call
	add := func(c Call, edit func(*Call)) {
		edit(&c)
		calls = append(calls, c)
	}
	add(call(FuncInit, 900_000, 999_000), func(c *Call) {})
	add(call(FuncTypeCommit, 1_000_000, 1_000_100), func(c *Call) { c.Type = ct })
	add(call(FuncIsend, 1_000_200, 1_000_400), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, 1, 0, 16384, ct, 1
	})
	add(call(FuncWait, 1_000_500, 1_000_600), func(c *Call) {
		c.Done = []Completion{{Request: 1, Kind: ReqSend, Peer: 1, Tag: 0, Bytes: 16384, Func: FuncIsend, Comm: 0}}
	})
	add(call(FuncSendrecv, 1_100_000, 1_200_000), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 1, 1, 16384, ct
		c.RecvPeer, c.RecvTag, c.RecvBytes, c.RecvType = 1, 1, 16384, ct
	})
	add(call(FuncBcast, 1_300_000, 1_300_500), func(c *Call) {
		c.Comm, c.Root, c.Bytes, c.Type = 0, 0, 2*16384, ct
	})
	add(call(FuncAllreduce, 1_400_000, 1_400_500), func(c *Call) { c.Comm, c.Bytes, c.Type = 0, 8, Datatype{Size: 8, Extent: 8} })
	add(call(FuncTypeFree, 1_500_000, 1_500_100), func(c *Call) { c.Type = Datatype{ID: 1} })
	add(call(FuncFinalize, 3_000_000, 3_100_000), func(c *Call) {})
	return h, comms, []*TypeDef{column}, calls
}

func encodeTyped(t testing.TB, h Header, comms []*Comm, types []*TypeDef, calls []Call) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comms {
		if err := w.WriteComm(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, ty := range types {
		if err := w.WriteType(ty); err != nil {
			t.Fatal(err)
		}
	}
	for i := range calls {
		if err := w.WriteCall(&calls[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(EndFinalize); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTypedRoundTrip(t *testing.T) {
	h, comms, types, calls := typedSample()
	f, err := decode(encodeTyped(t, h, comms, types, calls))
	if err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if !reflect.DeepEqual(f.Calls[i], calls[i].Clone()) {
			t.Errorf("call %d\n got %v\nwant %v", i, &f.Calls[i], &calls[i])
		}
	}
	// Two columns of the Bcast: the stride stays the column's.
	if s := f.Calls[5].Type.Stride; s != 1024 {
		t.Errorf("Bcast of 2 columns: stride %d", s)
	}
}

// decodeTypes is decode that also returns the descriptions.
func decodeTypes(data []byte) ([]*TypeDef, error) {
	r, err := NewReader(bytes.NewReader(data), "test.gpt")
	if err != nil {
		return nil, err
	}
	var c Call
	for {
		if err := r.Next(&c); err != nil {
			if errors.Is(err, io.EOF) {
				return r.TypeDefs(), nil
			}
			return nil, err
		}
	}
}

func TestTypeErrors(t *testing.T) {
	h, comms, types, calls := typedSample()
	v1 := h
	v1.Version = 1
	tests := []struct {
		name    string
		data    func(t *testing.T) []byte
		wantErr string
	}{
		{"datatype used before its definition", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, nil, calls)
		}, "datatype 1 used before its definition"},
		{"datatype defined twice", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{types[0], types[0]}, calls)
		}, "datatype 1 defined twice"},
		{"a predefined datatype", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{{ID: 1, Combiner: CombinerNamed, Size: 8, Extent: 8}}, calls)
		}, "datatype 1 is a predefined datatype"},
		{"id 0", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{{Combiner: CombinerContiguous, Size: 8, Extent: 8, Ints: []int64{1}, Types: []*TypeDef{tDouble}}}, calls[:1])
		}, "datatype id 0"},
		{"unknown combiner", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{{ID: 1, Combiner: numCombiners, Size: 8, Extent: 8}}, calls[:1])
		}, "datatype combiner 14, more than 13"},
		{"other with arguments", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{{ID: 1, Combiner: CombinerOther, Size: 8, Extent: 8, Ints: []int64{1}}}, calls[:1])
		}, "a datatype of combiner other with arguments"},
		{"nested too deep", func(t *testing.T) []byte {
			d := tDouble
			for range maxTypeDepth + 2 {
				d = derived(CombinerDup, 8, 8, nil, nil, d)
			}
			d.ID = 1
			return encodeTyped(t, h, comms, []*TypeDef{d}, calls[:1])
		}, "nested more than 16 deep"},
		{"integer outside int32", func(t *testing.T) []byte {
			return encodeTyped(t, h, comms, []*TypeDef{{ID: 1, Combiner: CombinerContiguous, Size: 8, Extent: 8, Ints: []int64{1 << 40}, Types: []*TypeDef{tDouble}}}, calls[:1])
		}, "datatype integer 1099511627776 outside int32"},
		{"a type record in a version 1 file", func(t *testing.T) []byte {
			b := encodeTyped(t, v1, comms, nil, nil)
			b = b[:len(b)-3] // the end record
			b = append(b, recType, 1)
			return append(b, appendTypeDesc(nil, types[0])...)
		}, "unknown record kind 0xf2"},
		{"a datatype id in a version 1 file", func(t *testing.T) []byte {
			b := encodeTyped(t, v1, comms, nil, nil)
			b = append(b[:len(b)-3], byte(FuncBarrier))
			return binary.AppendUvarint(b, fDType)
		}, "unknown fields 0x40000 in the mask of a version 1 file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeTypes(tc.data(t))
			var fe *FormatError
			if err == nil || !errors.As(err, &fe) || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want a *FormatError with %q", err, tc.wantErr)
			}
		})
	}
	if _, err := NewWriter(&bytes.Buffer{}, Header{Version: Version + 1}); err == nil {
		t.Error("NewWriter of a future version: no error")
	}
	w, err := NewWriter(&bytes.Buffer{}, v1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteType(types[0]); err == nil {
		t.Error("WriteType in a version 1 file: no error")
	}
}

// A version 1 file (what the tracer wrote before datatype descriptions)
// still reads, and converts the same.
func TestVersion1(t *testing.T) {
	h, comms, calls := sample()
	h.Version = 1
	f, err := decode(encode(t, h, comms, calls, EndFinalize))
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Version != 1 || len(f.Calls) != len(calls) {
		t.Errorf("version %d, %d calls", f.Header.Version, len(f.Calls))
	}
}
