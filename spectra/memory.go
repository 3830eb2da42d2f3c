package spectra

import "strings"

// MemoryNote says, for a test that the test memory bound stopped, what its
// processes held; "" for any other test. Such a test counts neither as
// failing nor as passing, so a reader must be told.
func (t TestRun) MemoryNote() string {
	if t.Verdict != Memory {
		return ""
	}
	// The runner ends a stopped test's output with the reason
	// (testbuild.Result.MemoryNote).
	out := strings.TrimRight(t.Output, "\n")
	why := strings.TrimPrefix(out[strings.LastIndexByte(out, '\n')+1:], "faultline: ")
	if !strings.Contains(why, "memory bound") {
		why = "was stopped by the test memory bound"
	}
	return t.Package + " " + t.Name + " " + why + ": counted neither failing nor passing"
}

// MemoryNotes are the MemoryNote of every test of m that the test memory
// bound stopped.
func (m *Matrix) MemoryNotes() []string {
	var notes []string
	for _, t := range m.Tests {
		if n := t.MemoryNote(); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}
