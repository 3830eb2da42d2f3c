package testbuild

import (
	"encoding/json"
	"strings"
	"testing"
)

// eventLines are test2json events as it writes them and lines that only
// look like them; every one must decode as json.Unmarshal decodes it.
var eventLines = []string{
	`{"Action":"start","Package":"example.com/m"}`,
	`{"Action":"run","Package":"example.com/m","Test":"TestA"}`,
	`{"Action":"output","Package":"example.com/m","Test":"TestA","Output":"=== RUN   TestA\n"}`,
	`{"Action":"output","Package":"example.com/m","Test":"TestA/sub_case#01","Output":"    a_test.go:12: got \"x\\y\"\t\u003cnil\u003e \u0026 é ✓\n"}`,
	`{"Action":"pass","Package":"example.com/m","Test":"TestA","Elapsed":0.01}`,
	`{"Action":"fail","Package":"example.com/m","Test":"TestB","Elapsed":12}` + "\n",
	`{"Action":"pass","Package":"example.com/m","Elapsed":1.5e-3}`,
	`{"Action":"output","Package":"example.com/m","Test":"TestA","Output":"\ufffd\u0000\b\f\r\/"}`,
	`{"Action":"output","Test":"TestA","Output":"emoji \ud83d\ude00 pair"}`,
	`{"Action":"output","Test":"TestA","Output":"lone \ud800 surrogate"}`,
	`{"Action":"output","OutputType":"frame","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
	`{"Action":"pass","Test":"TestA","Elapsed":-0}`,
	`{"Action":"pass","Test":"TestA","Elapsed":01}`,
	`{"Action":"pass","Test":"TestA","Elapsed":1.}`,
	`{"Action":"pass","Test":"TestA","Elapsed":1e400}`,
	`{"Action":"pass","Test":"TestA","Elapsed":"1"}`,
	`{"Action":"pass","Test":"TestA","Elapsed":Inf}`,
	`{"Action":"pass","Test":"TestA","Elapsed":null}`,
	`{"action":"pass","test":"TestA"}`,
	`{"ACTION":"pass","Action":"fail"}`,
	`{"Action":"pass","Action":"fail"}`,
	`{"Action":null,"Test":"TestA"}`,
	`{"Action":"pass","Extra":{"a":[1,2]},"Test":"TestA"}`,
	`{"Action":"pass","Extra":true,"Test":"TestA"}`,
	`{"Action":"pass","Extra":3,"Test":"TestA"}`,
	`{ "Action" : "pass" , "Test" : "TestA" }`,
	`{"Action":"pass","Test":"TestA"} trailing`,
	`{"Action":"pass","Test":"TestA"}{}`,
	`{"Action":"pass","Test":"TestA",}`,
	`{"Action":"pass","Test":}`,
	`{"Action":"pass","Test"}`,
	`{"Action":"pass",,"Test":"TestA"}`,
	`{"Action":"pa` + "\x01" + `ss"}`,
	`{"Action":"pa` + "\xff" + `ss"}`,
	`{"Action":"pass\q"}`,
	`{"Action":"pass\u12"}`,
	`{"Action":"pass\`,
	`{"Action":"pass`,
	`{}`,
	`{`,
	``,
	`null`,
	`[]`,
	`PASS`,
	`{"Action":"output","Output":"` + strings.Repeat("long line ", 1000) + `"}`,
}

func TestDecodeEventAgreesWithJSON(t *testing.T) {
	for _, line := range eventLines {
		checkDecodeEvent(t, line)
	}
}

// TestDecodeEventFastPath checks that the lines test2json writes are read
// without encoding/json: the fast path is what makes decoding cheap.
func TestDecodeEventFastPath(t *testing.T) {
	for _, line := range eventLines[:8] {
		if _, ok := decodeEventFast([]byte(line)); !ok {
			t.Errorf("%s: left to encoding/json", line)
		}
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, line := range eventLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) { checkDecodeEvent(t, line) })
}

func checkDecodeEvent(t *testing.T, line string) {
	t.Helper()
	var want Event
	wantOK := json.Unmarshal([]byte(line), &want) == nil
	var got Event
	gotOK := decodeEvent([]byte(line), &got)
	if gotOK != wantOK || wantOK && got != want {
		t.Errorf("%q: decoded %+v, %v; json.Unmarshal %+v, %v", line, got, gotOK, want, wantOK)
	}
}
