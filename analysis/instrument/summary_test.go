package instrument

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A site whose value's text is longer than a summary line may be (a large
// string) is left out, the other sites read as usual: the test's
// analysis goes on with that site concrete instead of failing.
func TestReadSummaryLeavesOutOverlongValues(t *testing.T) {
	huge := `s"` + strings.Repeat("x", 3*maxSummaryLine) + `"`
	text := "L 3 1 2 10 i7\nD 3 2 i7\nD 3 1 i8\n" +
		"L 5 1 4 11 " + huge + "\nD 5 1 " + huge + "\nD 5 1 s\"short\"\n" +
		"L 9 1 5 12 i1\nD 9 1 i1" // the last line has no end
	path := filepath.Join(t.TempDir(), "values.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := readSummary(path)
	if err != nil {
		t.Fatalf("readSummary: %v", err)
	}
	if _, ok := sum[5]; ok {
		t.Errorf("site 5, whose value is %d bytes, is in the summary", len(huge))
	}
	s3, s9 := sum[3], sum[9]
	if s3 == nil || s3.Value != "i7" || s3.Last != (Instance{1, 2}) || s3.Seq != 10 ||
		strings.Join(s3.Distinct, ",") != "i7,i8" || s3.Counts[0] != 2 || s3.Counts[1] != 1 {
		t.Errorf("site 3 read as %+v", s3)
	}
	if s9 == nil || s9.Value != "i1" || len(s9.Distinct) != 1 {
		t.Errorf("site 9, after the long lines and without a final newline, read as %+v", s9)
	}
}
