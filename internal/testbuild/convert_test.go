package testbuild

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// converterInputs are outputs of test binaries run with -test.v=test2json,
// and lines that only look like them.
var converterInputs = []string{
	"\x16=== RUN   TestA\nhello\n\x16--- PASS: TestA (0.01s)\n\x16PASS\n",
	// Subtests: indented reports, and indented output charged by depth.
	"\x16=== RUN   TestA\n\x16=== RUN   TestA/one\n    a_test.go:3: in one\n\x16=== NAME  TestA\n    a_test.go:5: in A\n" +
		"\x16--- FAIL: TestA (0.00s)\n\x16    --- FAIL: TestA/one (0.00s)\n        a_test.go:9: late\n    a_test.go:10: later\n\x16FAIL\n",
	// A panic in a subtest: reports for every test running, then the trace.
	"\x16=== RUN   TestP\n\x16=== RUN   TestP/sub\n\x16--- FAIL: TestP (0.00s)\n\x16    --- FAIL: TestP/sub (0.00s)\n" +
		"panic: boom [recovered]\n\tpanic: boom\n\ngoroutine 7 [running]:\ntesting.tRunner.func1.2({0x5, 0x6})\n\t/go/src/testing/testing.go:1 +0x1\nexit status 2\n",
	// Output without a newline before a framing line; a missing last newline.
	"\x16=== RUN   TestA\nno newline\x16--- PASS: TestA (0.00s)\n\x16=== RUN   TestB\nunterminated",
	// Long lines, cut into pieces at character boundaries.
	"\x16=== RUN   TestL\n" + strings.Repeat("é✓x", 700) + "\n" + strings.Repeat("ab", 2500) + "\n" + strings.Repeat("€", 3000) + "\x16--- PASS: TestL (1.50s)\n\x16PASS\n",
	// Invalid UTF-8, in output and in a test name.
	"\x16=== RUN   TestU\xff\nbad \xc3 byte \xe2\x82\n\x16--- FAIL: TestU\xff (0.00s)\n\x16FAIL\n",
	// Framing without the marker: framing until a marked line says otherwise.
	"=== RUN   TestFake\nx\n--- PASS: TestFake (0.00s)\n\x16=== RUN   TestA\n--- FAIL: TestA (0.00s)\n=== RUN   TestNot\n\x16--- PASS: TestA (0.00s)\nPASS\n",
	// Parallel tests, a name line without its spaces, attributes.
	"\x16=== RUN   TestA\n\x16=== PAUSE TestA\n\x16=== RUN   TestB\n\x16=== CONT  TestA\nout A\n\x16=== NAME\nnobody's\n" +
		"\x16=== NAME  TestB\nout B\n\x16=== ATTR  TestB key some value\n\x16=== ARTIFACTS TestB /tmp/dir\n\x16--- PASS: TestB (0.00s)\n\x16--- PASS: TestA (0.00s)\n\x16PASS\n",
	// Benchmarks, skips, a package without tests, CRLF, odd reports.
	"\x16=== RUN   BenchmarkX\nBenchmarkX-2   \t 1000\t 123 ns/op\nBenchmarkx\tnot one\n\x16--- BENCH: BenchmarkX\n    b_test.go:4: logged\n\x16PASS\n",
	"\x16=== RUN   TestS\n    s_test.go:8: why\n\x16--- SKIP: TestS (0.00s)\n\x16PASS\r\n",
	"?   \texample.com/m\t[no test files]\n",
	"        --- PASS: Deep (0.00s)\n--- FAIL: TestE (abcs)\n--- FAIL: TestF (1.0s\n\x16=== RUN   TestG\r\n\x16--- PASS: TestG (0.25s)\r\n\x16FAIL\texample.com/m\t0.01s\n",
	"\x16=== RUN   TestA\n" + strings.Repeat("x", 4095) + "\x16--- PASS: TestA (0.00s)\n" + strings.Repeat("y", 4096) + "\n\x16PASS\n",
	"",
	"\x16",
	"\x16\n\n\x16\x16=== RUN   TestA\n",
}

// test2jsonEvents runs go's test2json on input as faultline ran it.
func test2jsonEvents(t testing.TB, tool, input string) []Event {
	t.Helper()
	cmd := exec.Command(tool, "-t", "-p", "example.com/m")
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("test2json: %v", err)
	}
	var events []Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("test2json wrote %q: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	return events
}

// converted feeds input to a converter in writes of at most size bytes
// (all at once for 0).
func converted(input string, size int) []Event {
	var events []Event
	c := newConverter(func(ev Event) { events = append(events, ev) })
	for rest := input; rest != ""; {
		n := len(rest)
		if size > 0 && size < n {
			n = size
		}
		c.Write([]byte(rest[:n]))
		rest = rest[n:]
	}
	c.close()
	return events
}

// sameEvents compares two event streams; the package's last event carries
// the time since its start, which differs between any two runs.
func sameEvents(got, want []Event) bool {
	if len(got) != len(want) {
		return false
	}
	got, want = append([]Event{}, got...), append([]Event{}, want...)
	if n := len(got) - 1; n >= 0 && got[n].Action == want[n].Action && (got[n].Action == "pass" || got[n].Action == "fail" || got[n].Action == "skip") {
		got[n].Elapsed, want[n].Elapsed = 0, 0
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

var test2jsonTool = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "test2json").Output()
	return strings.TrimSpace(string(out)), err
})

func requireTest2JSON(t testing.TB) string {
	tool, err := test2jsonTool()
	if err != nil {
		t.Skipf("no test2json: %v", err)
	}
	return tool
}

// The converter makes the events go test2json makes of the same output,
// event for event.
func TestConverterAgreesWithTest2JSON(t *testing.T) {
	tool := requireTest2JSON(t)
	for _, input := range converterInputs {
		want := test2jsonEvents(t, tool, input)
		if got := converted(input, 0); !sameEvents(got, want) {
			t.Errorf("input %.200q:\nconverted %+v\ntest2json %+v", input, got, want)
		}
	}
}

// However the output is split into writes, each test gets the same
// verdict and output.
func TestConverterIgnoresHowOutputIsWritten(t *testing.T) {
	for _, input := range converterInputs {
		want := summary(converted(input, 0))
		for _, size := range []int{1, 2, 3, 7, 100, 1023, 4096} {
			if got := summary(converted(input, size)); got != want {
				t.Errorf("input %.200q in writes of %d:\n%s\nwant\n%s", input, size, got, want)
			}
		}
	}
}

// summary is each test's actions and output, as eventReader keeps them.
func summary(events []Event) string {
	r := newEventReader(nil)
	for _, ev := range events {
		r.event(ev)
	}
	var b strings.Builder
	for _, name := range append([]string{""}, r.order...) {
		t := r.tests[name]
		b.WriteString(strings.Join([]string{name, t.Action, t.Output()}, "|") + "\n")
	}
	return b.String()
}

func FuzzConverterAgreesWithTest2JSON(f *testing.F) {
	for _, input := range converterInputs {
		f.Add(input)
	}
	f.Fuzz(func(t *testing.T, input string) {
		tool := requireTest2JSON(t)
		want := test2jsonEvents(t, tool, input)
		if got := converted(input, 0); !sameEvents(got, want) {
			t.Errorf("input %.200q:\nconverted %+v\ntest2json %+v", input, got, want)
		}
	})
}
