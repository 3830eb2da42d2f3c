#!/bin/bash
# Rank time with and without -mutants on the bundled examples (warm store),
# the fault's place by Metallaxis-FL and MUSE, and the verified operator fixes.
# Run from the repository root; it builds faultline to /tmp/fl-mut.
set -e
go build -o /tmp/fl-mut ./cmd/faultline
set +e
root=$(pwd)
rm -rf /tmp/ex && mkdir -p /tmp/ex
for e in calc lru minmax money booking; do
  cp -r $root/examples/$e /tmp/ex/$e
  cd /tmp/ex/$e
  export FAULTLINE_CACHE=/tmp/ex/store-$e
  /tmp/fl-mut rank -json ./... >/dev/null 2>&1
  s=$(date +%s.%N); /tmp/fl-mut rank -json ./... > /tmp/ex/$e.plain.json 2>/dev/null; p=$(echo "$(date +%s.%N) - $s" | bc)
  s=$(date +%s.%N); /tmp/fl-mut rank -json -evidence -mutants 200 ./... > /tmp/ex/$e.mut.json 2>/dev/null; m=$(echo "$(date +%s.%N) - $s" | bc)
  python3 - $e $p $m $root <<'PY'
import json,sys
e,p,m,root=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]),sys.argv[4]
f=json.load(open(f'{root}/examples/{e}/fault.json'))
d=json.load(open(f'/tmp/ex/{e}.mut.json'))
mu=d.get('mutation',{})
def rank_of(key):
    ls=sorted(d['lines'], key=lambda l:-l.get('evidence',{}).get(key,-1e9))
    for i,l in enumerate(ls):
        if l['file'].endswith(f['file']) and l['line']==f['line']: return i+1
rank=[l['rank'] for l in d['lines'] if l['file'].endswith(f['file']) and l['line']==f['line']]
fx=[x['edited'] for x in mu.get('fixes',[]) if x['file'].endswith(f['file']) and x['line']==f['line']]
print(f"| {e} | {p:.1f}s | {m:.1f}s | {mu.get('run')}/{mu.get('generated')} | {mu.get('seconds',0):.1f}s | {rank[0] if rank else '-'} | {rank_of('mutation.metallaxis')} | {rank_of('mutation.muse')} | {len(mu.get('fixes',[]))} | {'`'+fx[0]+'`' if fx else 'none'} |")
PY
done
