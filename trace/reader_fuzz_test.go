package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReader checks that the Reader never panics, that it fails only with
// errors that wrap ErrFormat, and that what it reads survives Writer and
// Reader unchanged.
func FuzzReader(f *testing.F) {
	h, comms, calls := sample()
	good := encode(f, h, comms, calls, EndFinalize)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(encode(f, h, comms[:1], nil, EndExit))
	f.Add(encode(f, testHeader(0, 1), []*Comm{{ID: 0, Members: []int32{0}}}, []Call{call(FuncBarrier, 5, 9)}, EndAbort))
	f.Add([]byte{})
	f.Add(Magic)
	f.Add([]byte("num_ranks 1\nrank 0 {\n}\n"))
	th, tcomms, ttypes, tcalls := typedSample()
	f.Add(encodeTyped(f, th, tcomms, ttypes, tcalls))
	golden, _ := filepath.Glob(filepath.Join("testdata", "irregular", "*.gpt"))
	for _, g := range golden {
		data, err := os.ReadFile(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		h, comms, types, calls, end, err := readAll(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %q does not wrap ErrFormat", err)
			}
			return
		}
		// Write it again, each communicator before the call that first
		// followed it, and read it back.
		var buf bytes.Buffer
		w, err := NewWriter(&buf, h)
		if err != nil {
			t.Fatal(err)
		}
		next, nextType := 0, 0
		for i := range calls {
			for ; next < len(comms) && comms[next].before <= i; next++ {
				w.WriteComm(comms[next].c)
			}
			for ; nextType < len(types) && types[nextType].before <= i; nextType++ {
				w.WriteType(types[nextType].t)
			}
			w.WriteCall(&calls[i])
		}
		for ; next < len(comms); next++ {
			w.WriteComm(comms[next].c)
		}
		for ; nextType < len(types); nextType++ {
			w.WriteType(types[nextType].t)
		}
		if err := w.Close(end); err != nil {
			t.Fatal(err)
		}
		h2, comms2, types2, calls2, end2, err := readAll(buf.Bytes())
		if err != nil {
			t.Fatalf("reading a trace just written: %v", err)
		}
		if h2 != h || end2 != end || !reflect.DeepEqual(comms2, comms) || !reflect.DeepEqual(types2, types) || !reflect.DeepEqual(calls2, calls) {
			t.Fatalf("write and read changed the trace:\n%+v %v %+v\n%+v %v %+v", h, end, calls, h2, end2, calls2)
		}
	})
}

type commAt struct {
	c      *Comm
	before int // index of the call it precedes
}

type typeAt struct {
	t      *TypeDef
	before int
}

func readAll(data []byte) (Header, []commAt, []typeAt, []Call, EndReason, error) {
	r, err := NewReader(bytes.NewReader(data), "fuzz")
	if err != nil {
		return Header{}, nil, nil, nil, 0, err
	}
	var calls []Call
	var comms []commAt
	var types []typeAt
	var c Call
	for {
		err := r.Next(&c)
		for _, cm := range r.Comms()[len(comms):] {
			comms = append(comms, commAt{cm, len(calls)})
		}
		for _, ty := range r.TypeDefs()[len(types):] {
			types = append(types, typeAt{ty, len(calls)})
		}
		if err == io.EOF {
			return r.Header(), comms, types, calls, r.End(), nil
		}
		if err != nil {
			return Header{}, nil, nil, nil, 0, err
		}
		calls = append(calls, c.Clone())
	}
}
