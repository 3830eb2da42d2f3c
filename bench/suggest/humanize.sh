#!/bin/bash
# One seeded fault in go-humanize@v1.0.1's comma.go, FuzzComma as the
# specification: the fault's rank (tie group) by ochiai, op2 and sattar
# before and after faultline suggest -write.
# usage: bench/suggest/humanize.sh LINE FROM TO (FL: the faultline binary)
FL=${FL:-/tmp/faultline}
line=$1 from=$2 to=$3
d=$(mktemp -d) s=$(mktemp -d)
src=$(cd $d && go mod download -json github.com/dustin/go-humanize@v1.0.1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r $src $d/hz && chmod -R u+w $d/hz && cd $d/hz
cat > comma_fuzz_test.go <<'GO'
package humanize

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzComma: Comma(v) is v's decimal digits, grouped in threes from the
// right: the first group has one to three digits, every other group three.
func FuzzComma(f *testing.F) {
	for _, v := range []int64{0, 7, -7, 999, 1000, -1000, 1234567, 100000, -987654321, 1012} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		got := Comma(v)
		if strings.ReplaceAll(got, ",", "") != strconv.FormatInt(v, 10) {
			t.Fatalf("Comma(%d) = %q: not its digits", v, got)
		}
		groups := strings.Split(strings.TrimPrefix(got, "-"), ",")
		if n := len(groups[0]); n < 1 || n > 3 {
			t.Errorf("Comma(%d) = %q: first group of %d digits", v, got, n)
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				t.Errorf("Comma(%d) = %q: group %q", v, got, g)
			}
		}
	})
}
GO
sed -i "${line}s|$from|$to|" comma.go
failing=$(go test -run FuzzComma . 2>&1 | grep -c -- "--- FAIL: FuzzComma/")
ranks() { for f in ochiai op2 sattar; do FAULTLINE_CACHE=$s $FL rank -json -angelic=false -formula $f . 2>/dev/null | python3 -c "
import json,sys
r=json.load(sys.stdin); l=[x for x in r['lines'] if x['file']=='comma.go' and x['line']==$line]
print('$1', sys.argv[1], (l[0]['tie'] if l else 'absent'), 'of', len(r['lines']), 'lines;', r['failed'], 'failing')" $f; done; }
echo "== comma.go:$line $from -> $to ($failing failing seeds) load: $(cut -d' ' -f1-3 /proc/loadavg)"
ranks before
/usr/bin/time -f "wall %e s" env FAULTLINE_CACHE=$s $FL suggest -json -write . > out.json 2> err.txt; tail -1 err.txt
python3 -c "
import json; ts=json.load(open('out.json'))['targets']
for t in ts: print(t['target'], t['status'], 'inputs', len(t['inputs']), 'failing', sum(i['outcome']=='fail' for i in t['inputs']), 'runs', t['runs'], 'search', round(t['seconds'],1), 's; core', len(t['core']), 'notes', t.get('notes'))"
ranks after
cd /; rm -rf $d $s
