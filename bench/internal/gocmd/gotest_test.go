package gocmd

import (
	"slices"
	"strings"
	"testing"
)

func events(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func TestParseTestEventsCountsLeafTests(t *testing.T) {
	out := events(
		`{"Action":"run","Package":"m/a","Test":"TestT"}`,
		`{"Action":"pass","Package":"m/a","Test":"TestT/one"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestT/two/deep"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestT/two"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestT"}`,
		`{"Action":"skip","Package":"m/a","Test":"TestSkipped"}`,
		`{"Action":"pass","Package":"m/a","Test":"ExampleX"}`,
		`{"Action":"fail","Package":"m/a"}`,
		`{"Action":"pass","Package":"m/b","Test":"TestT"}`,
		`{"Action":"pass","Package":"m/b"}`,
	)
	o, err := ParseTestEvents(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Passed != 3 || o.Failed != 1 {
		t.Errorf("passed %d failed %d, want 3 and 1 (leaves only, per package)", o.Passed, o.Failed)
	}
	if !slices.Equal(o.FailedPackages, []string{"m/a"}) || !o.Mixed() || o.BuildFailed || o.TimedOut {
		t.Errorf("outcome %+v", o)
	}
}

func TestParseTestEventsBuildFailureAndTimeout(t *testing.T) {
	o, err := ParseTestEvents(events(
		`{"ImportPath":"m/a [m/a.test]","Action":"build-output","Output":"./a.go:3:1: syntax error\n"}`,
		`{"ImportPath":"m/a [m/a.test]","Action":"build-fail"}`,
		`{"Action":"fail","Package":"m/a","FailedBuild":"m/a [m/a.test]"}`,
	))
	if err != nil || !o.BuildFailed || o.Mixed() {
		t.Errorf("build failure: %+v, %v", o, err)
	}
	o, err = ParseTestEvents(events(
		`{"Action":"pass","Package":"m/a","Test":"TestFast"}`,
		`{"Action":"output","Package":"m/a","Test":"TestSlow","Output":"panic: test timed out after 2s\n"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestSlow"}`,
	))
	if err != nil || !o.TimedOut || o.Mixed() {
		t.Errorf("timeout: %+v, %v", o, err)
	}
	if _, err := ParseTestEvents([]byte("{not json\n")); err == nil {
		t.Error("malformed event accepted")
	}
}
