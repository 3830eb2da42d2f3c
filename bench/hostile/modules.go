package main

import (
	"fmt"
	"strings"
)

// hostileCase is one hostile module and what faultline should make of it.
type hostileCase struct {
	name   string
	what   string // what the module's tests do, for the table
	module string // txtar archive
}

// The modules' tests record the pids of the processes they leave behind in
// the file $HOSTILE_PIDS names, one a line, so the harness can clean up.
const recordPid = `
func recordPid(pid int) {
	if f, err := os.OpenFile(os.Getenv("HOSTILE_PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(f, pid)
		f.Close()
	}
}
`

// faultyAbs is the code under test of every module: Abs forgets to negate,
// so that every module has a fault to rank.
const faultyAbs = `-- go.mod --
module example.com/hostile

go 1.22
-- h/h.go --
package h

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return x
	}
	return x
}
`

// absTests are the honest tests beside the hostile ones: one fails.
const absTests = `
func TestAbsPositive(t *testing.T) {
	if Abs(3) != 3 {
		t.Fatal("Abs(3) != 3")
	}
}

func TestAbsNegative(t *testing.T) {
	if Abs(-2) != 2 {
		t.Fatalf("Abs(-2) = %d, want 2", Abs(-2))
	}
}
`

// cases returns the hostile modules; allocGiB bounds the allocating test,
// so that a faultline without a bound of its own does not bring in the
// kernel's OOM killer.
func cases(allocGiB int) []hostileCase {
	testFile := func(imports []string, body string) string {
		return faultyAbs + "-- h/h_test.go --\npackage h\n\nimport (\n\t\"" + strings.Join(imports, "\"\n\t\"") + "\"\n)\n" + recordPid + absTests + body
	}
	return []hostileCase{
		{"detached", "a test leaves `sleep 300` running in a new session, holding its output", testFile([]string{"fmt", "os", "os/exec", "syscall", "testing"}, `
func TestDetached(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	recordPid(cmd.Process.Pid)
}
`)},
		{"alloc", fmt.Sprintf("a failing test keeps allocating (touched) up to %d GiB", allocGiB), testFile([]string{"fmt", "os", "testing"}, fmt.Sprintf(`
func TestAllocates(t *testing.T) {
	var keep [][]byte
	for len(keep) < %d*16 {
		b := make([]byte, 64<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		keep = append(keep, b)
	}
	t.Fatalf("allocated %%d MiB", len(keep)*64)
}
`, allocGiB))},
		{"unterminated", "passing tests print 60 KB, 500 KB and 2 MB without a final newline", testFile([]string{"fmt", "os", "strings", "testing"}, `
func TestPrints60K(t *testing.T)  { fmt.Print(strings.Repeat("x", 60<<10)) }
func TestPrints500K(t *testing.T) { fmt.Print(strings.Repeat("y", 500<<10)) }
func TestPrints2M(t *testing.T)   { fmt.Print(strings.Repeat("z", 2<<20)) }
`)},
		{"hang", "a test sleeps for an hour (rank -timeout 10s)", testFile([]string{"fmt", "os", "testing", "time"}, `
func TestHangs(t *testing.T) {
	recordPid(os.Getpid())
	time.Sleep(time.Hour)
}
`)},
		{"crash", "one test panics, one calls os.Exit(3), one recurses without end", testFile([]string{"fmt", "os", "testing"}, `
func TestPanics(t *testing.T) {
	var m map[string]int
	m["x"] = Abs(-1)
}

func TestExits(t *testing.T) { os.Exit(3 + Abs(0)) }

func recurse(n int) int { return recurse(n+1) + Abs(n) }

func TestRecurses(t *testing.T) { recurse(0) }
`)},
		{"panics", "a table test of 1,000 cases that each panic (a nil map written)", testFile([]string{"fmt", "os", "testing"}, `
func TestTable(t *testing.T) {
	for i := 0; i < 1000; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var m map[int]int
			m[i] = Abs(-i)
		})
	}
}
`)},
	}
}
