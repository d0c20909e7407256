// Command gen writes the tracer's MPI wrappers from the specification in
// spec.go: the C and Fortran wrappers (trace/pmpi/wrappers_gen.c), the
// function ids for C (trace/pmpi/funcs_gen.h) and for Go
// (trace/funcs_gen.go).
//
// It runs from the trace package directory (`go generate ./trace`) or with
// -dir naming it (`go run ./trace/pmpi/gen -dir trace`, as the Makefile
// does); -check compares instead of writing and fails when a generated file
// is out of date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", ".", "the trace package directory")
	check := flag.Bool("check", false, "fail if a generated file differs instead of writing it")
	flag.Parse()
	files, err := Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	stale := false
	for _, name := range names {
		path := filepath.Join(*dir, name)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, files[name]) {
				fmt.Fprintf(os.Stderr, "gen: %s is out of date; run go generate ./trace\n", path)
				stale = true
			}
			continue
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if stale {
		os.Exit(1)
	}
}

// Generate returns the generated files by path relative to the trace
// package directory.
func Generate() (map[string][]byte, error) {
	fns := make([]*fn, 0, len(Specs))
	seen := map[int]string{}
	names := map[string]bool{}
	for i := range Specs {
		s := &Specs[i]
		if s.ID < 1 || s.ID > maxFuncID {
			return nil, fmt.Errorf("%s: id %d outside 1..%d", s.Name, s.ID, maxFuncID)
		}
		if prev, ok := seen[s.ID]; ok {
			return nil, fmt.Errorf("%s: id %d already taken by %s", s.Name, s.ID, prev)
		}
		if names[s.Name] {
			return nil, fmt.Errorf("%s: specified twice", s.Name)
		}
		seen[s.ID], names[s.Name] = s.Name, true
		f, err := parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		fns = append(fns, f)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].ID < fns[j].ID })

	c, err := genC(fns)
	if err != nil {
		return nil, err
	}
	goSrc, err := format.Source(genGo(fns))
	if err != nil {
		return nil, fmt.Errorf("formatting funcs_gen.go: %w", err)
	}
	return map[string][]byte{
		"pmpi/wrappers_gen.c": c,
		"pmpi/funcs_gen.h":    genH(fns),
		"funcs_gen.go":        goSrc,
	}, nil
}

// maxFuncID is the largest function id: record kinds 0xf0 and up are not
// calls (see the format).
const maxFuncID = 0xef

type param struct {
	Type  string // C type, e.g. "const int *" or "MPI_Comm"
	Name  string
	Array bool // declared NAME[]
	Role  string
}

// decl is the C declaration of the parameter.
func (p param) decl() string {
	t := p.Type
	if !strings.HasSuffix(t, "*") {
		t += " "
	}
	if p.Array {
		return t + p.Name + "[]"
	}
	return t + p.Name
}

// fdecl is the declaration in a Fortran binding: everything by
// reference, handles as MPI_Fint, buffers as void *.
func (p param) fdecl() string {
	if strings.Contains(p.Type, "void") {
		return "void *" + p.Name
	}
	return "MPI_Fint *" + p.Name
}

type fn struct {
	Spec
	Params []param
	roles  map[string]*param
}

var paramRE = regexp.MustCompile(`^(.*?)([A-Za-z_][A-Za-z0-9_]*)(\[\])?$`)

// roles lists every role a parameter may have.
var roles = map[string]bool{
	"count": true, "scount": true, "rcount": true, "type": true, "stype": true, "rtype": true,
	"peer": true, "source": true, "tag": true, "stag": true, "rtag": true, "root": true, "comm": true,
	"counts": true, "scounts": true, "rcounts": true, "sbuf": true, "reqout": true, "reqin": true,
	"n": true, "reqs": true, "status": true, "statuses": true, "index": true, "outcount": true,
	"indices": true, "flag": true, "provided": true, "newcomm": true, "freecomm": true,
	"errorcode": true, "fskip": true, "dtype": true, "freetype": true,
}

func parse(s *Spec) (*fn, error) {
	f := &fn{Spec: *s, roles: map[string]*param{}}
	if strings.TrimSpace(s.Params) == "" {
		return f, nil
	}
	for _, raw := range strings.Split(s.Params, ",") {
		raw = strings.TrimSpace(raw)
		decl, role, _ := strings.Cut(raw, ":")
		m := paramRE.FindStringSubmatch(strings.TrimSpace(decl))
		if m == nil || strings.TrimSpace(m[1]) == "" {
			return nil, fmt.Errorf("cannot parse parameter %q", raw)
		}
		p := param{Type: strings.TrimSpace(m[1]), Name: m[2], Array: m[3] != "", Role: role}
		if role != "" {
			if !roles[role] {
				return nil, fmt.Errorf("parameter %s: unknown role %q", p.Name, role)
			}
			if _, dup := f.roles[role]; dup && role != "fskip" {
				return nil, fmt.Errorf("role %q given twice", role)
			}
		}
		f.Params = append(f.Params, p)
		if role != "" {
			f.roles[role] = &f.Params[len(f.Params)-1]
		}
	}
	// Re-point the role map: appending may have moved the slice.
	for i := range f.Params {
		if r := f.Params[i].Role; r != "" {
			f.roles[r] = &f.Params[i]
		}
	}
	if _, err := f.helperCall(false); err != nil {
		return nil, err
	}
	return f, nil
}

// A recipe says how a kind is recorded: the runtime helper called after the
// PMPI call (with {role} placeholders), one called between the start time
// and the PMPI call, and the Go class.
type recipe struct {
	post   string
	before string
	init   bool // traced although the tracer has not started (Init)
	emits  bool // the helper emits the record itself
	class  string
}

var recipes = map[Kind]recipe{
	KInit:            {post: "gp_init(&c, rc, MPI_THREAD_SINGLE)", init: true, emits: true, class: "ClassInit"},
	KInitThread:      {post: "gp_init(&c, rc, {provided})", init: true, emits: true, class: "ClassInit"},
	KFinalize:        {post: "gp_finalize(&c, rc)", emits: true, class: "ClassFinalize"},
	KAbort:           {before: "gp_abort(&c, {comm}, {errorcode})", class: "ClassAbort"},
	KSend:            {post: "gp_send(&c, rc, {count}, {type}, {peer}, {tag}, {comm})", class: "ClassSend"},
	KIsend:           {post: "gp_isend(&c, rc, {count}, {type}, {peer}, {tag}, {comm}, {reqout})", class: "ClassIsend"},
	KRecv:            {post: "gp_recv(&c, rc, {type}, {source}, {tag}, {comm}, {status})", class: "ClassRecv"},
	KIrecv:           {post: "gp_irecv(&c, rc, {count}, {type}, {source}, {tag}, {comm}, {reqout})", class: "ClassIrecv"},
	KSendrecv:        {post: "gp_sendrecv(&c, rc, {scount}, {stype}, {peer}, {stag}, {rtype}, {source}, {rtag}, {comm}, {status})", class: "ClassSendrecv"},
	KSendrecvReplace: {post: "gp_sendrecv(&c, rc, {count}, {type}, {peer}, {stag}, {type}, {source}, {rtag}, {comm}, {status})", class: "ClassSendrecv"},
	KWait:            {post: "gp_wait(&c, rc, {reqin}, 1, {status})", class: "ClassWait"},
	KTest:            {post: "gp_wait(&c, rc, {reqin}, {flag}, {status})", class: "ClassTest"},
	KWaitall:         {post: "gp_waitall(&c, rc, {n}, {reqs}, 1, {statuses})", class: "ClassWait"},
	KTestall:         {post: "gp_waitall(&c, rc, {n}, {reqs}, {flag}, {statuses})", class: "ClassTest"},
	KWaitany:         {post: "gp_waitany(&c, rc, {n}, {reqs}, {index}, 1, {status})", class: "ClassWait"},
	KTestany:         {post: "gp_waitany(&c, rc, {n}, {reqs}, {index}, {flag}, {status})", class: "ClassTest"},
	KWaitsome:        {post: "gp_waitsome(&c, rc, {n}, {reqs}, {outcount}, {indices}, $BASE, {statuses})", class: "ClassWait"},
	KTestsome:        {post: "gp_waitsome(&c, rc, {n}, {reqs}, {outcount}, {indices}, $BASE, {statuses})", class: "ClassTest"},
	KIprobe:          {post: "gp_probe(&c, rc, {source}, {tag}, {comm}, {flag}, {status})", class: "ClassProbe"},
	KProbe:           {post: "gp_probe(&c, rc, {source}, {tag}, {comm}, 1, {status})", class: "ClassProbe"},
	KCancel:          {post: "gp_cancel(&c, rc, {reqin})", class: "ClassCancel"},
	KRequestFree:     {post: "gp_request_free(&c, rc, {reqin})", class: "ClassRequestFree"},
	KBarrier:         {post: "gp_barrier(&c, rc, {comm})", class: "ClassCollective"},
	KRooted:          {post: "gp_rooted(&c, rc, {count}, {type}, {root}, {comm})", class: "ClassCollective"},
	KReduce:          {post: "gp_allreduce(&c, rc, {count}, {type}, {comm})", class: "ClassCollective"},
	KAllgather:       {post: "gp_allgather(&c, rc, {rcount}, {rtype}, {comm})", class: "ClassCollective"},
	KAllgatherv:      {post: "gp_allgatherv(&c, rc, {rcounts}, {rtype}, {comm})", class: "ClassCollective"},
	KReduceScatter:   {post: "gp_allgatherv(&c, rc, {rcounts}, {type}, {comm})", class: "ClassCollective"},
	KGather:          {post: "gp_gather(&c, rc, {scount}, {stype}, {rcount}, {rtype}, {root}, {comm})", class: "ClassCollective"},
	KGatherv:         {post: "gp_gatherv(&c, rc, {scount}, {stype}, {rcounts}, {rtype}, {root}, {comm})", class: "ClassCollective"},
	KScatter:         {post: "gp_scatter(&c, rc, {scount}, {stype}, {rcount}, {rtype}, {root}, {comm})", class: "ClassCollective"},
	KScatterv:        {post: "gp_scatterv(&c, rc, {scounts}, {stype}, {rcount}, {rtype}, {root}, {comm})", class: "ClassCollective"},
	KAlltoallv:       {post: "gp_alltoallv(&c, rc, {sbuf}, {scounts}, {stype}, {rcounts}, {rtype}, {comm})", class: "ClassCollective"},
	KCommNew:         {post: "gp_comm_new(&c, rc, {comm}, {newcomm})", class: "ClassCommNew"},
	KCommFree:        {post: "gp_comm_free(&c, rc, {freecomm})", class: "ClassCommFree"},
	KTypeCommit:      {post: "gp_type_commit(&c, rc, {dtype})", class: "ClassType"},
	KTypeFree:        {post: "gp_type_free(&c, rc, {freetype})", class: "ClassType"},
}

// expr is the C expression a helper receives for parameter p, in a C
// (fortran false) or Fortran wrapper.
func expr(p *param, fortran bool) string {
	n := p.Name
	switch p.Role {
	case "count", "scount", "rcount", "peer", "source", "tag", "stag", "rtag", "root", "n", "errorcode":
		if fortran {
			return "*" + n
		}
		return n
	case "outcount", "flag", "provided": // outputs
		return "*" + n
	case "index":
		if fortran { // Fortran indexes from 1
			return "(*" + n + " == MPI_UNDEFINED ? MPI_UNDEFINED : *" + n + " - 1)"
		}
		return "*" + n
	case "type", "stype", "rtype":
		if fortran {
			return "PMPI_Type_f2c(*" + n + ")"
		}
		return n
	case "dtype":
		if fortran {
			return "PMPI_Type_f2c(*" + n + ")"
		}
		return "*" + n
	case "comm":
		if fortran {
			return "PMPI_Comm_f2c(*" + n + ")"
		}
		return n
	case "counts", "scounts", "rcounts", "indices":
		if fortran {
			return "(const int *)" + n
		}
		return n
	case "sbuf":
		if fortran {
			return "gp_f_in_place(" + n + ")"
		}
		return "(" + n + " == MPI_IN_PLACE)"
	case "reqout":
		if fortran {
			return "PMPI_Request_f2c(*" + n + ")"
		}
		return "*" + n
	case "newcomm":
		if fortran {
			return "PMPI_Comm_f2c(*" + n + ")"
		}
		return "*" + n
	case "reqin":
		return "gp_req"
	case "reqs":
		return "gp_reqs"
	case "status":
		return "gp_st"
	case "statuses":
		return "gp_sts"
	case "freecomm":
		return "gp_comm"
	case "freetype":
		return "gp_dt"
	}
	panic("no expression for role " + p.Role)
}

var placeholderRE = regexp.MustCompile(`\{([a-z]+)\}`)

// helperCall fills a recipe's post (or before) template.
func (f *fn) helperCall(fortran bool) (post string, err error) {
	r, ok := recipes[f.Kind]
	if !ok {
		return "", fmt.Errorf("kind %d has no recipe", f.Kind)
	}
	fill := func(tmpl string) string {
		out := placeholderRE.ReplaceAllStringFunc(tmpl, func(m string) string {
			role := m[1 : len(m)-1]
			p, ok := f.roles[role]
			if !ok {
				if err == nil {
					err = fmt.Errorf("recipe needs a parameter with role %q", role)
				}
				return m
			}
			return expr(p, fortran)
		})
		base := "0"
		if fortran {
			base = "1"
		}
		return strings.ReplaceAll(out, "$BASE", base)
	}
	post = fill(r.post) + fill(r.before)
	if f.NB {
		if _, ok := f.roles["reqout"]; !ok {
			return "", fmt.Errorf("a nonblocking collective needs a reqout parameter")
		}
	}
	return post, err
}

// cname is the C function name: "Init_thread" is MPI_Init_thread.
func (f *fn) cname() string { return "MPI_" + f.Name }

// goName is the Go constant: "Reduce_scatter_block" is FuncReduceScatterBlock.
func (f *fn) goName() string {
	var b strings.Builder
	b.WriteString("Func")
	for _, part := range strings.Split(f.Name, "_") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func (f *fn) macro() string { return "GP_FN_" + strings.ToUpper(f.Name) }

const header = `Code generated by trace/pmpi/gen from trace/pmpi/gen/spec.go; DO NOT EDIT.`

func genH(fns []*fn) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", header)
	b.WriteString("#ifndef GOPSIM_PMPI_FUNCS_GEN_H\n#define GOPSIM_PMPI_FUNCS_GEN_H\n\n")
	b.WriteString("/* Function ids: the first byte of a call record. */\n")
	for _, f := range fns {
		fmt.Fprintf(&b, "#define %-32s %3d /* %s */\n", f.macro(), f.ID, f.cname())
	}
	fmt.Fprintf(&b, "\n#define GP_FN_MAX %d\n\n#endif\n", maxFuncID)
	return b.Bytes()
}

func genGo(fns []*fn) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage trace\n\n", header)
	b.WriteString("// The MPI functions the tracer records. The values are stable: they are\n// stored in trace files.\n//\n// Not wrapped, with the reason:\n")
	for _, s := range Skipped {
		fmt.Fprintf(&b, "//   - %s: %s\n", s.Name, s.Why)
	}
	b.WriteString("const (\n")
	for _, f := range fns {
		fmt.Fprintf(&b, "\t%s Func = %d // %s\n", f.goName(), f.ID, f.cname())
	}
	b.WriteString(")\n\nvar funcTable = [...]funcInfo{\n")
	for _, f := range fns {
		class := recipes[f.Kind].class
		if f.NB {
			class = "ClassICollective"
		}
		fmt.Fprintf(&b, "\t%s: {%q, %s},\n", f.goName(), f.cname(), class)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// fortranNames are the symbols a Fortran wrapper is exported under: the
// usual name manglings of gfortran, ifort and others, and Open MPI's
// ompi_NAME_f, which its mpi_f08 module calls.
func fortranNames(name string) []string {
	l := strings.ToLower(name)
	return []string{"mpi_" + l, "mpi_" + l + "_", "mpi_" + l + "__", "MPI_" + strings.ToUpper(name), "ompi_" + l + "_f"}
}

func genC(fns []*fn) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s\n *\n * The MPI wrappers of the gopsim tracer: for each function a C wrapper\n"+
		" * (MPI_Xxx calling PMPI_Xxx) and a Fortran wrapper exported under the\n"+
		" * Fortran manglings, which forwards to the library's pmpi_xxx_ found with\n"+
		" * dlsym(RTLD_NEXT); for functions without a choice buffer also a wrapper\n"+
		" * of the mpi_f08 binding mpi_xxx_f08_. All hand the arguments to a helper\n"+
		" * of gopsim_pmpi.c.\n *\n"+
		" * Not wrapped:\n", header)
	for _, s := range Skipped {
		fmt.Fprintf(&b, " *   %s: %s\n", s.Name, s.Why)
	}
	b.WriteString(" */\n\n#include \"gopsim_pmpi.h\"\n")
	for _, f := range fns {
		if err := genCWrapper(&b, f); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if err := genFWrapper(&b, f, false); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if !f.hasBuffer() {
			if err := genFWrapper(&b, f, true); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	genFResolve(&b, fns)
	return b.Bytes(), nil
}

// genFResolve writes gp_f_resolve, which looks up every Fortran wrapper's
// library function at once. gp_init calls it while MPI_Init is still
// being recorded: looked up at a function's first call instead, the
// dlsym (microseconds each, a search of every loaded library for a
// binding the library lacks) would fall between two records, where it
// counts as the program's computation.
func genFResolve(b *bytes.Buffer, fns []*fn) {
	b.WriteString("\n/* gp_f_resolve looks up the library functions of every Fortran wrapper\n" +
		" * (see gp_init); a wrapper whose function is missing looks it up again at\n" +
		" * its first call, and stops the program there if it is still missing. */\n" +
		"void gp_f_resolve(void)\n{\n")
	for _, f := range fns {
		lower := strings.ToLower(f.Name)
		fmt.Fprintf(b, "\tif (!gp_f_%s_next)\n\t\tgp_f_%s_next = (gp_f_%s_t)gp_f_find(%q);\n", lower, lower, lower, lower)
		if !f.hasBuffer() {
			fmt.Fprintf(b, "\tif (!gp_f08_%s_next)\n\t\tgp_f08_%s_next = (gp_f08_%s_t)gp_f08_find(%q);\n", lower, lower, lower, lower)
		}
	}
	b.WriteString("}\n")
}

// hasBuffer reports whether f has a choice buffer. The mpi_f08 bindings of
// such functions call the C MPI_Xxx (MPICH) or ompi_xxx_f (Open MPI),
// which the tracer wraps; MPICH's bindings of the others call PMPI_Xxx,
// so the tracer wraps their mpi_xxx_f08_ too.
func (f *fn) hasBuffer() bool {
	for _, p := range f.Params {
		if strings.Contains(p.Type, "void") {
			return true
		}
	}
	return false
}

// needsTmp reports whether the wrapper allocates scratch space.
func (f *fn) needsTmp() bool {
	_, a := f.roles["reqs"]
	_, b := f.roles["statuses"]
	return a || b
}

func (f *fn) nExpr(fortran bool) string {
	p := f.roles["n"]
	if fortran {
		return "*" + p.Name
	}
	return p.Name
}

func genCWrapper(b *bytes.Buffer, f *fn) error {
	r := recipes[f.Kind]
	post, err := f.helperCall(false)
	if err != nil {
		return err
	}
	var decls, args []string
	for _, p := range f.Params {
		decls = append(decls, p.decl())
		switch p.Role {
		case "status":
			args = append(args, "gp_st")
		case "statuses":
			args = append(args, "gp_sts")
		default:
			args = append(args, p.Name)
		}
	}
	plain := make([]string, len(f.Params))
	for i, p := range f.Params {
		plain[i] = p.Name
	}
	if len(decls) == 0 {
		decls = []string{"void"}
	}
	enter := "gp_enter()"
	if r.init {
		enter = "gp_enter_init()"
	}
	fmt.Fprintf(b, "\n/* %s: %s */\nint %s(%s)\n{\n", f.cname(), kindComment(f), f.cname(), strings.Join(decls, ", "))
	fmt.Fprintf(b, "\tif (!%s)\n\t\treturn P%s(%s);\n", enter, f.cname(), strings.Join(plain, ", "))
	b.WriteString("\tgp_call c;\n")
	if f.needsTmp() {
		b.WriteString("\tgp_tmp gp_t;\n\tgp_tmp_init(&gp_t);\n")
	}
	for _, p := range f.Params {
		switch p.Role {
		case "reqin":
			fmt.Fprintf(b, "\tMPI_Request gp_req = *%s;\n", p.Name)
		case "reqs":
			fmt.Fprintf(b, "\tMPI_Request *gp_reqs = gp_save_reqs(&gp_t, %s, %s);\n", p.Name, f.nExpr(false))
		case "status":
			fmt.Fprintf(b, "\tMPI_Status gp_st0, *gp_st = %s == MPI_STATUS_IGNORE ? &gp_st0 : %s;\n", p.Name, p.Name)
		case "statuses":
			fmt.Fprintf(b, "\tMPI_Status *gp_sts = gp_statuses(&gp_t, %s, %s);\n", p.Name, f.nExpr(false))
		case "freecomm":
			fmt.Fprintf(b, "\tMPI_Comm gp_comm = *%s;\n", p.Name)
		case "freetype":
			fmt.Fprintf(b, "\tMPI_Datatype gp_dt = *%s;\n", p.Name)
		}
	}
	fmt.Fprintf(b, "\tgp_begin(&c, %s);\n", f.macro())
	if r.before != "" {
		fmt.Fprintf(b, "\t%s;\n", post)
	}
	fmt.Fprintf(b, "\tint rc = P%s(%s);\n\tgp_end(&c);\n", f.cname(), strings.Join(args, ", "))
	writePost(b, f, r, post, false)
	if f.needsTmp() {
		b.WriteString("\tgp_tmp_free(&gp_t);\n")
	}
	b.WriteString("\tgp_leave();\n\treturn rc;\n}\n")
	return nil
}

func writePost(b *bytes.Buffer, f *fn, r recipe, post string, fortran bool) {
	if r.before != "" {
		b.WriteString("\t(void)rc;\n")
		return
	}
	b.WriteString("\tgp_lock();\n")
	fmt.Fprintf(b, "\t%s;\n", post)
	if f.NB {
		fmt.Fprintf(b, "\tgp_icoll(&c, rc, %s);\n", expr(f.roles["reqout"], fortran))
	}
	if !r.emits {
		b.WriteString("\tgp_emit(&c);\n")
	}
	b.WriteString("\tgp_unlock();\n")
}

func kindComment(f *fn) string {
	var rs []string
	for _, p := range f.Params {
		if p.Role != "" && p.Role != "fskip" {
			rs = append(rs, p.Name+"="+p.Role)
		}
	}
	if len(rs) == 0 {
		return "no arguments recorded"
	}
	return strings.Join(rs, " ")
}

// genFWrapper writes the Fortran wrapper of f: for the mpi module and
// mpif.h (forwarding to pmpi_xxx_), or with f08 for the mpi_f08 module's
// mpi_xxx_f08_ (forwarding to the next mpi_xxx_f08_, as MPICH has no
// pmpi_xxx_f08_).
func genFWrapper(b *bytes.Buffer, f *fn, f08 bool) error {
	r := recipes[f.Kind]
	post, err := f.helperCall(true)
	if err != nil {
		return err
	}
	var decls, types, plain, args []string
	for _, p := range f.Params {
		if p.Role == "fskip" {
			continue
		}
		d := p.fdecl()
		decls = append(decls, d)
		types = append(types, strings.TrimSuffix(d, p.Name))
		plain = append(plain, p.Name)
		switch p.Role {
		case "status":
			args = append(args, "gp_fst")
		case "statuses":
			args = append(args, "gp_fsts")
		default:
			args = append(args, p.Name)
		}
	}
	decls = append(decls, "MPI_Fint *ierr")
	types = append(types, "MPI_Fint *")
	plain = append(plain, "ierr")
	args = append(args, "ierr")
	lower := strings.ToLower(f.Name)
	ftype := "gp_f_" + lower + "_t"
	fname := "gp_f_" + lower
	next, syms := "gp_f_next", fortranNames(f.Name)
	if f08 {
		ftype, fname = "gp_f08_"+lower+"_t", "gp_f08_"+lower
		next, syms = "gp_f08_next", []string{"mpi_" + lower + "_f08_"}
	}
	enter := "gp_enter()"
	if r.init {
		enter = "gp_enter_init()"
	}
	if !f08 {
		fmt.Fprintf(b, "\ntypedef void (*%s)(%s);\n", ftype, strings.Join(types, ", "))
	} else {
		fmt.Fprintf(b, "\ntypedef gp_f_%s_t %s;\n", lower, ftype)
	}
	fmt.Fprintf(b, "static %s %s_next;\n", ftype, fname)
	fmt.Fprintf(b, "static void %s(%s)\n{\n", fname, strings.Join(decls, ", "))
	fmt.Fprintf(b, "\tif (!%s_next)\n\t\t%s_next = (%s)%s(%q);\n", fname, fname, ftype, next, lower)
	fmt.Fprintf(b, "\tif (!%s) {\n\t\t%s_next(%s);\n\t\treturn;\n\t}\n", enter, fname, strings.Join(plain, ", "))
	b.WriteString("\tgp_call c;\n")
	if f.needsTmp() {
		b.WriteString("\tgp_tmp gp_t;\n\tgp_tmp_init(&gp_t);\n")
	}
	for _, p := range f.Params {
		switch p.Role {
		case "reqin":
			fmt.Fprintf(b, "\tMPI_Request gp_req = PMPI_Request_f2c(*%s);\n", p.Name)
		case "reqs":
			fmt.Fprintf(b, "\tMPI_Request *gp_reqs = gp_save_freqs(&gp_t, %s, %s);\n", p.Name, f.nExpr(true))
		case "status":
			fmt.Fprintf(b, "\tMPI_Fint gp_fst0[GP_F_STATUS_SIZE];\n\tMPI_Fint *gp_fst = gp_f_status_ignore(%s) ? gp_fst0 : %s;\n", p.Name, p.Name)
		case "statuses":
			fmt.Fprintf(b, "\tMPI_Fint *gp_fsts = gp_f_statuses(&gp_t, %s, %s);\n", p.Name, f.nExpr(true))
		case "freecomm":
			fmt.Fprintf(b, "\tMPI_Comm gp_comm = PMPI_Comm_f2c(*%s);\n", p.Name)
		case "freetype":
			fmt.Fprintf(b, "\tMPI_Datatype gp_dt = PMPI_Type_f2c(*%s);\n", p.Name)
		}
	}
	fmt.Fprintf(b, "\tgp_begin(&c, %s);\n", f.macro())
	if r.before != "" {
		fmt.Fprintf(b, "\t%s;\n", post)
	}
	fmt.Fprintf(b, "\t%s_next(%s);\n\tgp_end(&c);\n\tint rc = ierr ? *ierr : MPI_SUCCESS;\n", fname, strings.Join(args, ", "))
	for _, p := range f.Params {
		switch p.Role {
		case "status":
			b.WriteString("\tMPI_Status gp_st0, *gp_st = &gp_st0;\n\tgp_f2c_status(gp_fst, gp_st);\n")
		case "statuses":
			fmt.Fprintf(b, "\tMPI_Status *gp_sts = gp_f2c_statuses(&gp_t, gp_fsts, %s);\n", f.nExpr(true))
		}
	}
	writePost(b, f, r, post, true)
	if f.needsTmp() {
		b.WriteString("\tgp_tmp_free(&gp_t);\n")
	}
	b.WriteString("\tgp_leave();\n}\n")
	for _, sym := range syms {
		fmt.Fprintf(b, "void %s(%s) __attribute__((alias(%q)));\n", sym, strings.Join(decls, ", "), fname)
	}
	return nil
}
