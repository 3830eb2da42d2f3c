//go:build cgo

package formula

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
)

// The dynamic backward slice of the failed check, computed from the trace
// the analysis records anyway: no solver, one pass over the events before
// the check and a breadth-first walk back from it. Dependences are at the
// granularity of statement instances:
//   - data: a statement instance reads a local that an earlier instance in
//     the same sliceAct assigned (by any statement that assigns it, so
//     locals the formula does not track count too); a parameter reads the
//     argument its call passed; a statement calling functions reads what
//     they returned (their return instances, or their last instance when
//     no returned value was recorded);
//   - control: the condition instance that decided whether the instance
//     ran (controlGroups), or else its activation's entry, which depends in
//     turn on the condition that controls the call; and, as in a relevant
//     slice, the condition instances since a local's last assignment whose
//     direction not taken would have assigned it, for each local read (an
//     omitted assignment is then reached through its condition).
//   - writes: a call given a pointer, slice or map (its receiver or a
//     parameter) depends on what it stored through them, and a later read
//     of a caller's local of a matching type depends on the call, since
//     the heap itself is not followed; so does a read of a local of the
//     type of a value the call returned that the trace does not record
//     (a struct, say), whose assignment has no instance of its own.
// Sites of one statement instance (consecutive in their sliceAct) depend
// on each other, so an assertion's operands and a statement's parts are
// one node. What flows through globals and closures is not followed: the
// slice under-approximates there.

// sliceAct is one call of an instrumented function: the runtime numbers
// activations per function.
type sliceAct struct {
	fn  *instrument.Function
	act int32
}

// sliceSite is what the slice needs of a site, computed once per site.
type sliceSite struct {
	stmt  ast.Node
	reads []*types.Var
	defs  []*types.Var
	// callees names the functions and methods the statement calls;
	// callsValue says it also calls a function value, which may be any.
	callees    []string
	callsValue bool
	control    [][]*instrument.Site
}

// calls reports whether the statement may call fn.
func (info *sliceSite) calls(fn *instrument.Function) bool {
	return info.callsValue || slices.Contains(info.callees, fn.Name)
}

// within reports whether node n lies inside outer (the same node
// included): the sites of a statement's parts and of the statement.
func within(n, outer ast.Node) bool {
	return outer.Pos() <= n.Pos() && n.End() <= outer.End()
}

// Slice returns the lines of non-test code in the dynamic backward slice
// of the run's failed check, with their distance from it. When the run
// failed no check the analysis recognises (an assertion on values it does
// not record, a check in a helper of another package), the slice starts
// at the last instance of test code the run recorded: with t.Fatal and
// require the failing check, else a statement after it.
func (r *FailingRun) Slice() []result.SliceLine {
	check := r.failedCheck()
	for i := len(r.trace) - 1; check < 0 && i >= 0; i-- {
		if ev := r.trace[i]; ev.Site >= 0 && int(ev.Site) < len(r.prog.Sites) {
			if s := r.prog.Sites[ev.Site]; s.Hard && s.Expr != nil {
				check = i
			}
		}
	}
	if check < 0 {
		return nil
	}
	deps := r.dependences(check)
	dist := make([]int, check+1)
	for i := range dist {
		dist[i] = -1
	}
	dist[check] = 0
	queue := []int32{int32(check)}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range deps[i] {
			if dist[j] < 0 {
				dist[j] = dist[i] + 1
				queue = append(queue, j)
			}
		}
	}
	type fileLine struct {
		file string
		line int
	}
	best := map[fileLine]int{}
	for i, d := range dist {
		if d < 0 {
			continue
		}
		s := r.prog.Sites[r.trace[i].Site]
		if s.Hard || s.Expr == nil {
			continue
		}
		k := fileLine{s.File, s.Pos.Line}
		if old, ok := best[k]; !ok || d < old {
			best[k] = d
		}
	}
	out := make([]result.SliceLine, 0, len(best))
	for k, d := range best {
		out = append(out, result.SliceLine{File: k.file, Line: k.line, Distance: d})
	}
	slices.SortFunc(out, func(a, b result.SliceLine) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		if a.File != b.File {
			if a.File < b.File {
				return -1
			}
			return 1
		}
		return a.Line - b.Line
	})
	return out
}

// dependences returns, for each event up to last, the events it depends
// on directly.
func (r *FailingRun) dependences(last int) [][]int32 {
	type actVar struct {
		a sliceAct
		v *types.Var
	}
	type actSite struct {
		a    sliceAct
		site int32
	}
	deps := make([][]int32, last+1)
	infos := map[int32]*sliceSite{}
	var stack []sliceAct
	enter := map[sliceAct]int32{}
	leave := map[sliceAct]int32{}
	returns := map[sliceAct][]int32{}
	args := map[sliceAct][]int32{}        // a call's arguments, by callee activation
	pendingArgs := map[sliceAct][]int32{} // arguments recorded since the caller's last call
	children := map[sliceAct][]sliceAct{} // calls left since the caller's last instance
	lastEvent := map[sliceAct]int32{}
	lastDef := map[actVar]int32{}
	lastSite := map[actSite]int32{}
	// Conditions since a local's last assignment whose direction not
	// taken would have assigned it: a read depends on them too (what the
	// run did not do matters for an omitted assignment).
	potential := map[actVar][]int32{}
	notTakenDefs := map[notTakenKey][]*types.Var{}
	// Calls that left each activation having been given a pointer, slice
	// or map, or returning a value the trace does not record: a local of
	// the caller of a matching type read later may hold what they stored
	// or returned (the heap, and assignments of unrecorded values, are
	// not followed, so the match is by type).
	writers := map[sliceAct][]writerCall{}
	matches := map[refMatch]bool{}
	shares := func(t types.Type, v *types.Var) bool {
		key := refMatch{t, v}
		ok, seen := matches[key]
		if !seen {
			ok = mayShare(t, v.Type())
			matches[key] = ok
		}
		return ok
	}
	// writes are the types of what a function may write for its caller:
	// its pointers, slices and maps, and its results the trace does not
	// record; derived once per function, asked at every read.
	writeTypes := map[*instrument.Function][]types.Type{}
	writes := func(fn *instrument.Function) []types.Type {
		ts, ok := writeTypes[fn]
		if !ok {
			for _, r := range fn.Refs {
				ts = append(ts, r.Type())
			}
			for _, t := range fn.Results {
				if instrument.ValueKind(t) == 0 {
					ts = append(ts, t)
				}
			}
			writeTypes[fn] = ts
		}
		return ts
	}
	// writtenBy returns the leave events of the calls since v's last
	// recorded assignment in a that may have written it, newest first,
	// among the last maxWriters calls.
	writtenBy := func(a sliceAct, v *types.Var) []int32 {
		since := int32(-1)
		if j, ok := lastDef[actVar{a, v}]; ok {
			since = j
		}
		var out []int32
		ws := writers[a]
		for k := len(ws) - 1; k >= max(0, len(ws)-maxWriters) && ws[k].leave > since; k-- {
			if slices.ContainsFunc(writes(ws[k].fn), func(t types.Type) bool { return shares(t, v) }) {
				out = append(out, ws[k].leave)
			}
		}
		return out
	}
	for i := 0; i <= last; i++ {
		ev := r.trace[i]
		s := r.prog.SiteOf(ev)
		if s == nil || s.Fn == nil {
			continue
		}
		a := sliceAct{s.Fn, ev.Inst.Act}
		dep := func(j int32) {
			if j >= 0 && j != int32(i) && !slices.Contains(deps[i], j) {
				deps[i] = append(deps[i], j)
			}
		}
		switch s.Kind {
		case instrument.KindEnter:
			if n := len(stack); n > 0 {
				caller := stack[n-1]
				for _, j := range pendingArgs[caller] {
					if r.prog.Sites[r.trace[j].Site].Target == s.Fn {
						args[a] = append(args[a], j)
					}
				}
				delete(pendingArgs, caller)
			}
			stack = append(stack, a)
			enter[a] = int32(i)
			continue
		case instrument.KindLeave:
			if k := slices.Index(stack, a); k >= 0 {
				stack = slices.Delete(stack, k, k+1)
				if k > 0 {
					caller := stack[k-1]
					children[caller] = append(children[caller], a)
				}
			}
			leave[a] = int32(i)
			if rs := returns[a]; len(rs) > 0 {
				for _, j := range rs {
					dep(j)
				}
			} else if j, ok := lastEvent[a]; ok {
				dep(j)
			}
			// What it stored through its pointers, slices and maps, itself
			// or in the calls it made.
			for _, v := range a.fn.Refs {
				if j, ok := lastDef[actVar{a, v}]; ok {
					dep(j)
				}
				for _, j := range writtenBy(a, v) {
					dep(j)
				}
			}
			if k := len(stack); k > 0 && (len(a.fn.Refs) > 0 || len(a.fn.Results) > 0) {
				caller := stack[k-1]
				writers[caller] = append(writers[caller], writerCall{a.fn, int32(i)})
			}
			delete(writers, a)
			continue
		}
		info := infos[ev.Site]
		if info == nil {
			info = r.sliceSite(s)
			infos[ev.Site] = info
		}
		// Control: the nearest condition instance that decided this one
		// ran, else the activation's entry.
		ctrl := int32(-1)
		for _, group := range info.control {
			for _, c := range group {
				if j, ok := lastSite[actSite{a, c.Id}]; ok && j > ctrl {
					ctrl = j
				}
			}
			if ctrl >= 0 {
				break
			}
		}
		if ctrl < 0 {
			if j, ok := enter[a]; ok {
				ctrl = j
			}
		}
		dep(ctrl)
		// Calls made since this activation's last instance: their entries
		// are controlled as this instance is, and their results flow into
		// it when its statement calls.
		for _, c := range children[a] {
			if j, ok := enter[c]; ok && ctrl >= 0 && !slices.Contains(deps[j], ctrl) {
				deps[j] = append(deps[j], ctrl)
			}
			if j, ok := leave[c]; ok && info.calls(c.fn) {
				dep(j)
			}
		}
		delete(children, a)
		// Data: the last assignment of each local read.
		for _, v := range info.reads {
			if j, ok := lastDef[actVar{a, v}]; ok {
				dep(j)
			}
			for _, j := range potential[actVar{a, v}] {
				dep(j)
			}
			for _, j := range writtenBy(a, v) {
				dep(j)
			}
		}
		if s.Kind == instrument.KindParam {
			for _, j := range args[a] {
				if r.prog.Sites[r.trace[j].Site].Index == s.Index {
					dep(j)
				}
			}
		}
		// The other sites of the same statement instance.
		if j, ok := lastEvent[a]; ok && info.stmt != nil {
			if prev := infos[r.trace[j].Site]; prev != nil && prev.stmt != nil && within(prev.stmt, info.stmt) {
				dep(j)
			}
		}
		switch s.Kind {
		case instrument.KindArg:
			pendingArgs[a] = append(pendingArgs[a], int32(i))
		case instrument.KindReturn:
			returns[a] = append(returns[a], int32(i))
		}
		for _, v := range info.defs {
			lastDef[actVar{a, v}] = int32(i)
			delete(potential, actVar{a, v})
		}
		if s.Kind == instrument.KindCond && s.Stmt != nil {
			k := notTakenKey{ev.Site, ev.Value != 0}
			vs, ok := notTakenDefs[k]
			if !ok {
				vs = assignedIn(notTaken(s, k.taken), s.Info)
				notTakenDefs[k] = vs
			}
			for _, v := range vs {
				potential[actVar{a, v}] = append(potential[actVar{a, v}], int32(i))
			}
		}
		lastSite[actSite{a, ev.Site}] = int32(i)
		lastEvent[a] = int32(i)
	}
	return deps
}

// maxWriters bounds how many of the calls before a read of a local are
// asked whether they wrote it: a loop of calls between an assignment and
// its reads would otherwise make the slice quadratic in the trace.
const maxWriters = 16

// writerCall is a call given a pointer, slice or map or returning a
// value, by its function and its leave event.
type writerCall struct {
	fn    *instrument.Function
	leave int32
}

// refMatch asks whether a callee's parameter or result of type ref may
// share storage with local v of its caller, or be its value.
type refMatch struct {
	ref types.Type
	v   *types.Var
}

// mayShare reports whether a parameter of type ref may have been given a
// local of type v, or a result of type ref assigned to it: the same type,
// the local's address (a method with a pointer receiver called on an
// addressable value), or the local's dynamic value when it is an
// interface.
func mayShare(ref types.Type, v types.Type) bool {
	if types.Identical(ref, v) {
		return true
	}
	if p, ok := ref.(*types.Pointer); ok && types.Identical(p.Elem(), v) {
		return true
	}
	if iface, ok := v.Underlying().(*types.Interface); ok && !iface.Empty() {
		return types.Implements(ref, iface)
	}
	return false
}

// notTakenKey is a condition site and the direction one of its instances
// took.
type notTakenKey struct {
	site  int32
	taken bool
}

// assignedIn returns the locals code assigns whole (=, :=, op=, ++, --).
func assignedIn(code []ast.Node, info *types.Info) []*types.Var {
	var out []*types.Var
	add := func(x ast.Expr) {
		if id, ok := ast.Unparen(x).(*ast.Ident); ok {
			obj := info.Uses[id]
			if obj == nil {
				obj = info.Defs[id]
			}
			if v, ok := obj.(*types.Var); ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	for _, n := range code {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					add(l)
				}
			case *ast.IncDecStmt:
				add(n.X)
			case *ast.FuncLit:
				return false
			}
			return true
		})
	}
	return out
}

// sliceSite computes what the slice needs of a site: its statement, the
// locals the statement reads and assigns, whether it calls, and the
// conditions that control it.
func (r *FailingRun) sliceSite(s *instrument.Site) *sliceSite {
	info := &sliceSite{}
	if s.Obj != nil {
		info.defs = append(info.defs, s.Obj)
	}
	fs := r.syntax(s)
	if fs == nil || s.Expr == nil {
		return info
	}
	info.stmt = enclosingStatement(fs.file, s)
	info.control = r.controlGroups(s)
	local := func(id *ast.Ident) *types.Var {
		obj := s.Info.Uses[id]
		if obj == nil {
			obj = s.Info.Defs[id]
		}
		v, ok := obj.(*types.Var)
		if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return nil
		}
		return v
	}
	read := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				var name *ast.Ident
				switch f := ast.Unparen(n.Fun).(type) {
				case *ast.Ident:
					name = f
				case *ast.SelectorExpr:
					name = f.Sel
				case *ast.IndexExpr: // a generic function instantiated
					if id, ok := f.X.(*ast.Ident); ok {
						name = id
					}
				}
				var obj types.Object
				if name != nil {
					obj = s.Info.Uses[name]
				}
				switch obj.(type) {
				case *types.Builtin, *types.TypeName:
				case *types.Func:
					info.callees = append(info.callees, name.Name)
				default:
					if tv, ok := s.Info.Types[n.Fun]; !ok || !tv.IsType() {
						info.callsValue = true
					}
				}
			case *ast.Ident:
				if v := local(n); v != nil && !slices.Contains(info.reads, v) {
					info.reads = append(info.reads, v)
				}
			}
			return true
		})
	}
	// assign records what an assignment's left side stores to: a local
	// assigned whole, or the local an element or field belongs to (which
	// the store reads too, as it keeps the rest of it).
	assign := func(lhs ast.Expr, reads bool) {
		root := ast.Unparen(lhs)
		for done := false; !done; {
			switch x := root.(type) {
			case *ast.SelectorExpr:
				root = ast.Unparen(x.X)
			case *ast.IndexExpr:
				root = ast.Unparen(x.X)
			case *ast.StarExpr:
				root = ast.Unparen(x.X)
			default:
				done = true
			}
		}
		id, ok := root.(*ast.Ident)
		if id != lhs || reads {
			read(lhs)
		}
		if ok {
			if v := local(id); v != nil && !slices.Contains(info.defs, v) {
				info.defs = append(info.defs, v)
			}
		}
	}
	switch st := info.stmt.(type) {
	case *ast.AssignStmt:
		for _, x := range st.Rhs {
			read(x)
		}
		for _, l := range st.Lhs {
			assign(l, st.Tok != token.ASSIGN && st.Tok != token.DEFINE)
		}
	case *ast.IncDecStmt:
		assign(st.X, true)
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok {
			for _, spec := range gd.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for _, x := range vs.Values {
						read(x)
					}
					for _, id := range vs.Names {
						assign(id, false)
					}
				}
			}
		}
	default:
		read(info.stmt)
	}
	return info
}
