// Package genmod generates Go modules of a chosen size for the benchmarks:
// packages of functions that are chains of arithmetic steps, one test per
// function, and one seeded fault whose line can be toggled.
package genmod

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Size is the shape of a generated module: Packages × FuncsPerPackage
// functions of LinesPerFunc lines each (at least 9), one test per function.
type Size struct {
	Packages, FuncsPerPackage, LinesPerFunc int
}

const modulus = 1000003

// FaultyLine is the line whose edit toggles the fault.
type FaultyLine struct {
	Path        string
	Index       int // 0-based line number in Path
	Good, Buggy string
}

// Set rewrites the line, fixed or faulty. A numbered comment makes every
// edit new to the engine, so no save is answered from earlier results.
func (f FaultyLine) Set(fixed bool, edit int) error {
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	line := f.Buggy
	if fixed {
		line = f.Good
	}
	lines[f.Index] = fmt.Sprintf("%s // edit %d", line, edit)
	return os.WriteFile(f.Path, []byte(strings.Join(lines, "\n")), 0o644)
}

// Generate writes the module: every function is a chain of arithmetic
// steps with one branch, and its test checks one value computed here.
// The fault is in p0's first function, one step off. It returns the
// faulty line (set faulty), the lines of code and the tests.
func Generate(root string, size Size) (FaultyLine, int, int, error) {
	var fault FaultyLine
	lines, tests := 0, 0
	write := func(rel, text string) error {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(text), 0o644)
	}
	if err := write("go.mod", "module example.com/bench\n\ngo 1.26\n"); err != nil {
		return fault, 0, 0, err
	}
	for p := 0; p < size.Packages; p++ {
		var src, test strings.Builder
		fmt.Fprintf(&src, "package p%d\n\n", p)
		fmt.Fprintf(&test, "package p%d\n\nimport \"testing\"\n", p)
		for f := 0; f < size.FuncsPerPackage; f++ {
			name := fmt.Sprintf("F%d", f)
			fmt.Fprintf(&src, "// %s mixes its input through a chain of steps.\nfunc %s(x int) int {\n\ts := x\n", name, name)
			s := 7 + f
			steps := size.LinesPerFunc - 8
			for i := 0; i < steps; i++ {
				c := (p*131 + f*17 + i*7) % 97
				line := fmt.Sprintf("\ts = (s*3 + %d) %% %d\n", c, modulus)
				if p == 0 && f == 0 && i == steps/2 {
					fault.Index = strings.Count(src.String(), "\n")
					fault.Good = strings.TrimSuffix(line, "\n")
					fault.Buggy = fmt.Sprintf("\ts = (s*3 + %d) %% %d", c+1, modulus)
				}
				src.WriteString(line)
				s = (s*3 + c) % modulus
			}
			src.WriteString("\tif s%2 == 0 {\n\t\ts++\n\t}\n\treturn s\n}\n\n")
			if s%2 == 0 {
				s++
			}
			fmt.Fprintf(&test, "\nfunc Test%s(t *testing.T) {\n\tif got := %s(%d); got != %d {\n\t\tt.Errorf(\"%s(%d) = %%d, want %d\", got)\n\t}\n}\n", name, name, 7+f, s, name, 7+f, s)
			tests++
		}
		lines += strings.Count(src.String(), "\n")
		if err := write(fmt.Sprintf("p%d/p.go", p), src.String()); err != nil {
			return fault, 0, 0, err
		}
		if err := write(fmt.Sprintf("p%d/p_test.go", p), test.String()); err != nil {
			return fault, 0, 0, err
		}
	}
	fault.Path = filepath.Join(root, "p0", "p.go")
	return fault, lines, tests, fault.Set(false, 0)
}
