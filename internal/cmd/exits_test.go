package cmd

import "testing"

// A test name given where a package goes gets a hint; a package whose
// name merely begins like one does not.
func TestTestNameHint(t *testing.T) {
	for name, want := range map[string]bool{
		"TestSuffix": true, "Test": true, "TestAllocate/halves": true, "FuzzMinMax": true, "Test_under": true, "ExampleAllocate": true,
		"Testdata": false, "testutil": false, "./TestSuffix": false, "Tests.go": false, "example.com/TestX": false,
	} {
		if got := testName.MatchString(name); got != want {
			t.Errorf("%q looks like a test name: %v, want %v", name, got, want)
		}
	}
}
