package trace

import (
	"slices"
	"strings"
	"testing"
)

// TestRegisterFormat checks the registry: formats sorted by name, found
// by name and by Detect, and the registrations that are programming
// errors panic.
func TestRegisterFormat(t *testing.T) {
	saved := Formats()
	defer func() { formats.list = saved }()
	formats.list = nil
	open := func(string, OpenOptions) (*Opened, error) { return nil, nil }
	suffix := func(s string) func(string) bool { return func(p string) bool { return strings.HasSuffix(p, s) } }
	RegisterFormat(Format{Name: "zeta", Detect: suffix(".z"), Open: open})
	RegisterFormat(Format{Name: "alpha", Detect: suffix(".a"), Open: open})
	RegisterFormat(Format{Name: "mid", Detect: suffix(".m"), Open: open})
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"alpha", "mid", "zeta"}) {
		t.Fatalf("Formats() = %v", names)
	}
	tests := []struct {
		name, path string
		want       string // "" for none
	}{
		{"first", "x.a", "alpha"},
		{"last", "dir/x.z", "zeta"},
		{"none", "x.goal", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := DetectFormat(tc.path)
			if ok != (tc.want != "") || f.Name != tc.want {
				t.Errorf("DetectFormat(%q) = %q, %v; want %q", tc.path, f.Name, ok, tc.want)
			}
		})
	}
	if f, ok := LookupFormat("mid"); !ok || f.Name != "mid" {
		t.Errorf("LookupFormat(mid) = %q, %v", f.Name, ok)
	}
	if _, ok := LookupFormat("nope"); ok {
		t.Error("LookupFormat(nope) found a format")
	}
	bad := []struct {
		name string
		f    Format
	}{
		{"twice", Format{Name: "mid", Detect: suffix(".m"), Open: open}},
		{"no name", Format{Detect: suffix(".m"), Open: open}},
		{"no Detect", Format{Name: "x", Open: open}},
		{"no Open", Format{Name: "y", Detect: suffix(".y")}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterFormat(%+v) did not panic", tc.f.Name)
				}
			}()
			RegisterFormat(tc.f)
		})
	}
}
