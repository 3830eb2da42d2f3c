//go:build cgo

package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestTerminating checks the spec's terminating statements on the last
// statement of each function: the instrumentation appends nothing after
// one, since the compiler would then report a missing return.
func TestTerminating(t *testing.T) {
	src := `package p
func ifElseSwitch(r int, e bool) int {
	if !e {
		switch {
		case r < 0x20:
			return 0
		default:
			return 1
		}
	} else {
		switch r {
		case 1:
			fallthrough
		case 2:
			return 2
		default:
			return 1
		}
	}
}
func switchNoDefault(r int) int {
	switch {
	case r < 0:
		return 0
	}
	return 1
}
func switchBreak(r int) int {
	switch {
	case r < 0:
		break
	default:
		return 1
	}
	return 0
}
func forWithInnerBreak(ch chan int) int {
	for {
		switch <-ch {
		case 0:
			break
		default:
			return 1
		}
	}
}
func forBreakLabel(ch chan int) int {
outer:
	for {
		switch <-ch {
		case 0:
			break outer
		default:
			return 1
		}
	}
	return 0
}
func typeSwitch(x any) int {
	switch x.(type) {
	case int:
		return 1
	default:
		panic("no")
	}
}
func selectAll(a, b chan int) int {
	select {
	case v := <-a:
		return v
	case v := <-b:
		return v
	}
}
func selectBreak(a chan int) int {
	select {
	case <-a:
		break
	}
	return 0
}
`
	want := map[string]bool{
		"ifElseSwitch": true, "switchNoDefault": false, "switchBreak": false, "forWithInnerBreak": true,
		"forBreakLabel": false, "typeSwitch": true, "selectAll": true, "selectBreak": false,
	}
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		list := fd.Body.List
		// A function whose statement before the last return is under test.
		last := list[len(list)-1]
		if _, ok := last.(*ast.ReturnStmt); ok && len(list) > 1 {
			last = list[len(list)-2]
		}
		if got := terminating(last); got != want[fd.Name.Name] {
			t.Errorf("%s: terminating = %v, want %v", fd.Name.Name, got, want[fd.Name.Name])
		}
	}
}
