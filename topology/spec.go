package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is a parsed --topology string: a generator and its parameters.
//
//	fattree:k=K,n=N[,oversub=O]   k-ary n-tree, K^N hosts; O (default 1) divides K:
//	                              leaves get K/O up-links (O:1 oversubscription)
//	torus:D0xD1[xD2][,p=P]        1-, 2- or 3-D torus, P hosts per router (default 1)
//	dragonfly:a=A,p=P,h=H[,g=G]   G groups (default A·H+1) of A routers, each with
//	                              P hosts and H global links; G <= A·H+1
//
// Keys may come in any order; kinds and keys are case-insensitive. Build
// makes the Graph; String gives the canonical form, which parses back to
// the same Spec.
type Spec struct {
	Kind string // "fattree", "torus" or "dragonfly"

	K, N, Oversub int   // fattree
	Dims          []int // torus
	P             int   // torus, dragonfly: hosts per router
	A, H, G       int   // dragonfly
}

// SpecFlag names spec strings in errors: "--topology:1:COL: ...".
const SpecFlag = "--topology"

// Generate parses a --topology spec and builds its graph.
func Generate(spec string) (*Graph, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.Build()
}

// maxParam bounds every numeric parameter of a spec.
const maxParam = 1 << 24

type specArg struct {
	key, val string
	col      int // of the key, 1-based
	vcol     int // of the value
}

// splitSpec splits "kind:k=v,k=v" into the kind and its arguments; an
// argument without '=' has an empty key.
func splitSpec(flag, s string) (string, []specArg, error) {
	kind, rest, _ := strings.Cut(s, ":")
	if kind == "" {
		return "", nil, &SyntaxError{flag, 1, 1, "missing kind"}
	}
	var args []specArg
	if rest == "" {
		return strings.ToLower(kind), nil, nil
	}
	col := len(kind) + 2
	for _, a := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			args = append(args, specArg{"", a, col, col})
		} else {
			args = append(args, specArg{strings.ToLower(k), v, col, col + len(k) + 1})
		}
		col += len(a) + 1
	}
	return strings.ToLower(kind), args, nil
}

func specInt(flag string, a specArg) (int, error) {
	n, err := strconv.Atoi(a.val)
	if err != nil || n < 0 || n > maxParam {
		return 0, &SyntaxError{flag, 1, a.vcol, fmt.Sprintf("%s=%q: want an integer from 0 to %d", a.key, a.val, maxParam)}
	}
	return n, nil
}

// ParseSpec parses a --topology spec (see Spec); errors are SyntaxErrors
// at "--topology:1:COL".
func ParseSpec(s string) (Spec, error) {
	kind, args, err := splitSpec(SpecFlag, s)
	if err != nil {
		return Spec{}, err
	}
	sp := Spec{Kind: kind}
	var keys []string
	switch kind {
	case "fattree":
		keys = []string{"k", "n", "oversub"}
		sp.Oversub = 1
	case "torus":
		keys = []string{"dims", "p"}
		sp.P = 1
	case "dragonfly":
		keys = []string{"a", "p", "h", "g"}
	default:
		return Spec{}, &SyntaxError{SpecFlag, 1, 1, fmt.Sprintf("unknown topology %q (want fattree, torus or dragonfly)", kind)}
	}
	seen := map[string]bool{}
	for i, a := range args {
		key := a.key
		if key == "" && kind == "torus" && i == 0 {
			key = "dims"
		}
		known := false
		for _, k := range keys {
			known = known || k == key
		}
		if !known {
			if a.key == "" {
				return Spec{}, &SyntaxError{SpecFlag, 1, a.col, fmt.Sprintf("%q: want key=value (%s takes %s)", a.val, kind, strings.Join(keys, ", "))}
			}
			return Spec{}, &SyntaxError{SpecFlag, 1, a.col, fmt.Sprintf("unknown parameter %q (%s takes %s)", a.key, kind, strings.Join(keys, ", "))}
		}
		if seen[key] {
			return Spec{}, &SyntaxError{SpecFlag, 1, a.col, fmt.Sprintf("%s given twice", key)}
		}
		seen[key] = true
		if key == "dims" {
			col := a.vcol
			for _, d := range strings.Split(strings.ToLower(a.val), "x") {
				n, err := strconv.Atoi(d)
				if err != nil || n < 1 || n > maxParam {
					return Spec{}, &SyntaxError{SpecFlag, 1, col, fmt.Sprintf("torus dimension %q: want an integer from 1 to %d", d, maxParam)}
				}
				sp.Dims = append(sp.Dims, n)
				col += len(d) + 1
			}
			if len(sp.Dims) > 3 {
				return Spec{}, &SyntaxError{SpecFlag, 1, a.vcol, fmt.Sprintf("%d torus dimensions (want 1 to 3)", len(sp.Dims))}
			}
			continue
		}
		n, err := specInt(SpecFlag, specArg{key, a.val, a.col, a.vcol})
		if err != nil {
			return Spec{}, err
		}
		if n < 1 && key != "h" { // h=0: a dragonfly of one group
			return Spec{}, &SyntaxError{SpecFlag, 1, a.vcol, fmt.Sprintf("%s=%d: want at least 1", key, n)}
		}
		switch key {
		case "k":
			sp.K = n
		case "n":
			sp.N = n
		case "oversub":
			sp.Oversub = n
		case "p":
			sp.P = n
		case "a":
			sp.A = n
		case "h":
			sp.H = n
		case "g":
			sp.G = n
		}
	}
	var need []string
	switch kind {
	case "fattree":
		need = []string{"k", "n"}
	case "torus":
		need = []string{"dims"}
	case "dragonfly":
		need = []string{"a", "p", "h"}
	}
	for _, k := range need {
		if !seen[k] {
			return Spec{}, &SyntaxError{SpecFlag, 1, len(s) + 1, fmt.Sprintf("%s needs %s", kind, strings.Join(need, ", "))}
		}
	}
	if kind == "dragonfly" && !seen["g"] {
		sp.G = sp.A*sp.H + 1
		if sp.G > maxParam {
			return Spec{}, &SyntaxError{SpecFlag, 1, len(s) + 1, fmt.Sprintf("dragonfly a=%d, h=%d: the default g = a·h+1 = %d is beyond %d; give g", sp.A, sp.H, sp.G, maxParam)}
		}
	}
	return sp, nil
}

// String returns the canonical spec.
func (s Spec) String() string {
	switch s.Kind {
	case "fattree":
		if s.Oversub > 1 {
			return fmt.Sprintf("fattree:k=%d,n=%d,oversub=%d", s.K, s.N, s.Oversub)
		}
		return fmt.Sprintf("fattree:k=%d,n=%d", s.K, s.N)
	case "torus":
		d := make([]string, len(s.Dims))
		for i, x := range s.Dims {
			d[i] = strconv.Itoa(x)
		}
		if s.P > 1 {
			return fmt.Sprintf("torus:%s,p=%d", strings.Join(d, "x"), s.P)
		}
		return "torus:" + strings.Join(d, "x")
	case "dragonfly":
		return fmt.Sprintf("dragonfly:a=%d,p=%d,h=%d,g=%d", s.A, s.P, s.H, s.G)
	}
	return s.Kind
}

// Build generates the graph the spec describes.
func (s Spec) Build() (*Graph, error) {
	switch s.Kind {
	case "fattree":
		return FatTree(s.K, s.N, s.Oversub)
	case "torus":
		return Torus(s.Dims, s.P)
	case "dragonfly":
		return Dragonfly(s.A, s.P, s.H, s.G)
	}
	return nil, errTopo("unknown topology %q", s.Kind)
}
