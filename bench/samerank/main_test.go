package main

import "testing"

func TestNormaliseZeroesOnlyTheTimings(t *testing.T) {
	in := `{
  "lines": [{"score": 0.61, "seconds": 3}],
  "tests": [
    {
      "test": "TestA",
      "seconds": 0.52097516,
      "solveSeconds": 6.74084e-04,
      "runs": 32,
      "cached": false
    }
  ]
}`
	want := `{
  "lines": [{"score": 0.61, "seconds": 0}],
  "tests": [
    {
      "test": "TestA",
      "seconds": 0,
      "solveSeconds": 0,
      "runs": 32,
      "cached": false
    }
  ]
}`
	if got := string(normalise([]byte(in))); got != want {
		t.Errorf("normalise:\n%s\nwant:\n%s", got, want)
	}
}
