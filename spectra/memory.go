package spectra

import "strings"

// MemoryNotes names each test of m that the test memory bound stopped,
// with what its processes held: such a test counts neither as failing
// nor as passing, so a reader must be told.
func (m *Matrix) MemoryNotes() []string {
	var notes []string
	for _, t := range m.Tests {
		if t.Verdict != Memory {
			continue
		}
		// The runner ends a stopped test's output with the reason
		// (testbuild.Result.MemoryNote).
		out := strings.TrimRight(t.Output, "\n")
		why := out[strings.LastIndexByte(out, '\n')+1:]
		why = strings.TrimPrefix(why, "faultline: ")
		if !strings.Contains(why, "memory bound") {
			why = "stopped by the test memory bound"
		}
		notes = append(notes, t.Package+" "+t.Name+" "+why+": counted neither failing nor passing")
	}
	return notes
}
