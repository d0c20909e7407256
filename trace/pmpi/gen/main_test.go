package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The generated files in the repository are what the spec generates now.
func TestGeneratedUpToDate(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("trace/%s is out of date: run go generate ./trace", name)
		}
	}
}

func TestSpecErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"id taken", Spec{10, "Foo", KSend, "int count:count, MPI_Datatype t:type, int d:peer, int tag:tag, MPI_Comm c:comm", false}, "id 10 already taken by Send"},
		{"id too large", Spec{0xf0, "Foo", KBarrier, "MPI_Comm c:comm", false}, "outside 1..239"},
		{"unknown role", Spec{200, "Foo", KBarrier, "MPI_Comm c:comms", false}, `unknown role "comms"`},
		{"missing role", Spec{200, "Foo", KSend, "int count:count, MPI_Comm c:comm", false}, `needs a parameter with role "type"`},
		{"bad parameter", Spec{200, "Foo", KBarrier, "MPI_Comm", false}, "cannot parse parameter"},
		{"nonblocking without request", Spec{200, "Foo", KBarrier, "MPI_Comm c:comm", true}, "needs a reqout parameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			saved := Specs
			defer func() { Specs = saved }()
			Specs = append(append([]Spec(nil), saved...), tc.spec)
			_, err := Generate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
