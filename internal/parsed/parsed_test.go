package parsed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestCacheParsesEachContentOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	write := func(src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := New(0)
	write("package a\n\nvar x = 1\n")
	first, err := c.Read(path)
	if err != nil || first.Err != nil || first.AST == nil {
		t.Fatalf("first read: %v, %+v", err, first)
	}
	again, err := c.Read(path)
	if err != nil || again != first || c.Parses() != 1 {
		t.Fatalf("unchanged file parsed again: same=%v parses=%d err=%v", again == first, c.Parses(), err)
	}
	write("package a\n\n\nvar x = 2\n")
	changed, err := c.Read(path)
	if err != nil || changed == first || c.Parses() != 2 {
		t.Fatalf("changed content not parsed again: same=%v parses=%d err=%v", changed == first, c.Parses(), err)
	}
	if got := changed.Line(changed.AST.Decls[0].Pos()); got != 4 {
		t.Errorf("declaration at line %d, want 4", got)
	}
	if _, err := c.Read(filepath.Join(dir, "missing.go")); err == nil {
		t.Error("a missing file read without an error")
	}
}

func TestCacheKeepsPartialTreesAndBound(t *testing.T) {
	c := New(40)
	broken := c.Parse("b.go", []byte("package b\n\nfunc F() {\n\tif {\n}\n"))
	if broken.Err == nil || broken.AST == nil || broken.AST.Name.Name != "b" {
		t.Fatalf("broken file: err=%v ast=%v", broken.Err, broken.AST)
	}
	empty := c.Parse("e.go", nil)
	if empty.Err == nil || empty.Tok == nil {
		t.Fatalf("empty file: err=%v tok=%v", empty.Err, empty.Tok)
	}
	// The bound of 40 bytes holds one of these files: the first is let go
	// and parsed again when asked for, its line table still answering.
	a := c.Parse("a.go", []byte("package a\n\nvar a = 1 // twenty-odd bytes\n"))
	if c.Parse("b.go", []byte("package b\n\nfunc F() {\n\tif {\n}\n")) == broken {
		t.Error("a file over the bound was kept")
	}
	if got := a.Line(a.AST.Decls[0].Pos()); got != 3 {
		t.Errorf("line %d after eviction, want 3", got)
	}
}

func TestDerivedComputesOncePerKey(t *testing.T) {
	c := New(0)
	calls := 0
	derive := func() any { calls++; return calls }
	if v := c.Derived("a", derive); v != 1 {
		t.Fatalf("first value %v, want 1", v)
	}
	if v := c.Derived("a", derive); v != 1 || calls != 1 {
		t.Fatalf("same key derived again: value %v, %d calls", v, calls)
	}
	for i := range maxDerived {
		c.Derived(fmt.Sprint("k", i), derive)
	}
	if c.Derived("a", derive); calls != maxDerived+2 {
		t.Errorf("the oldest key was kept past the bound: %d calls", calls)
	}
}
