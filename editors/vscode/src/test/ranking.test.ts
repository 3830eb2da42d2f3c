// Unit tests of the pure modules (no VS Code needed): node --test out/test/
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LEVELS, byUri, level, lineLevel, parseRanking, rowId, rows, sameRows } from '../ranking';

const sample = {
  formula: 'ochiai',
  failed: 1,
  passed: 3,
  lines: [
    { uri: 'file:///m/calc/calc.go', file: 'calc/calc.go', line: 9, score: 0.5, rank: 3, tie: [2, 3], ef: 1, ep: 3, nf: 0, np: 0 },
    { uri: 'file:///m/calc/calc.go', file: 'calc/calc.go', line: 7, score: 1, rank: 1, tie: [1, 1], ef: 1, ep: 0, nf: 0, np: 3 },
    { uri: 'file:///m/calc/calc.go', file: 'calc/calc.go', line: 6, score: 0.5, rank: 2, tie: [2, 3], ef: 1, ep: 3, nf: 0, np: 0 },
    { uri: 'file:///m/other.go', file: 'other.go', line: 14, score: 0, rank: 4, ef: 0, ep: 1, nf: 1, np: 2 },
  ],
};

test('colour level is relative to the top score', () => {
  assert.equal(level(1, 1), 5);
  assert.equal(level(0.5, 1), 3);
  assert.equal(level(0.01, 1), 1);
  assert.equal(level(0, 1), 0);
  assert.equal(level(-3, 1), 0);
  assert.equal(level(40, 80), 3, 'unbounded formulas scale too');
  assert.equal(level(2, 1), LEVELS, 'clamped');
  assert.equal(level(Number.NaN, 1), 0);
  assert.equal(level(1, 0), 0);
});

test('every level has its colours declared in package.json', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const ids = new Set(manifest.contributes.colors.map((c: { id: string }) => c.id));
  for (let lv = 1; lv <= LEVELS; lv++) {
    assert.ok(ids.has(`faultline.suspicious${lv}`), `faultline.suspicious${lv}`);
    assert.ok(ids.has(`faultline.ruler${lv}`), `faultline.ruler${lv}`);
  }
});

test('ranking is sorted by rank and rows describe each line', () => {
  const result = parseRanking(sample);
  assert.deepEqual(result.lines.map((l) => l.line), [7, 6, 9, 14]);
  const r = rows(result);
  assert.equal(r[0].label, 'calc.go:7');
  assert.equal(r[0].description, '#1 · ochiai 1.00');
  assert.equal(r[0].level, 5);
  assert.equal(r[0].uri, 'file:///m/calc/calc.go');
  assert.equal(r[1].description, '#2 (tied 2–3) · ochiai 0.50');
  assert.match(r[0].tooltip, /run by 1 of 1 failing and 0 of 3 passing tests/);
  assert.equal(r[3].level, 0);
  assert.ok(sameRows(r, rows(parseRanking(sample))), 'the same ranking parsed twice gives the same rows');
  assert.ok(!sameRows(r, r.slice(1)) && !sameRows(r, [...r].reverse()), 'fewer or reordered rows are not the same');
  assert.ok(!sameRows(r, r.map((row, i) => (i === 2 ? { ...row, tooltip: row.tooltip + ' ' } : row))), 'a changed tooltip is a change');
});

test('a row keeps its id when the order changes, and no two rows share one', () => {
  const r = rows(parseRanking(sample));
  const ids = r.map(rowId);
  assert.equal(new Set(ids).size, ids.length, `ids repeat: ${ids.join(', ')}`);
  const reordered = [...r].reverse().map((row) => ({ ...row, description: 'moved' }));
  assert.deepEqual(reordered.map(rowId), [...ids].reverse());
  const twice = parseRanking({ lines: [{ uri: 'file:///a.go', line: 3, rank: 4 }, { uri: 'file:///a.go', line: 3, rank: 1 }] });
  assert.deepEqual(twice.lines.map((l) => l.rank), [1], 'a line listed twice is one row, at its best rank');
});

test('decorations group coloured lines per document and skip zero scores', () => {
  const groups = byUri(parseRanking(sample), 10);
  assert.deepEqual(groups.get('file:///m/calc/calc.go'), [
    { line: 7, level: 5 },
    { line: 6, level: 3 },
    { line: 9, level: 3 },
  ]);
  assert.equal(groups.has('file:///m/other.go'), false);
  const top2 = byUri(parseRanking(sample), 2);
  assert.deepEqual(top2.get('file:///m/calc/calc.go'), [
    { line: 7, level: 5 },
    { line: 6, level: 3 },
  ]);
});

test('in the combined order a line with verified angelic fixes leads, coloured at the top level', () => {
  const combined = parseRanking({
    formula: 'ochiai',
    order: 'combined',
    failed: 2,
    passed: 3,
    lines: [
      { uri: 'file:///m/a.go', file: 'a.go', line: 4, score: 0.9, rank: 2, tie: [2, 2], ef: 2, ep: 1, nf: 0, np: 2 },
      { uri: 'file:///m/a.go', file: 'a.go', line: 8, score: 0.3, rank: 1, tie: [1, 1], ef: 1, ep: 1, nf: 1, np: 2, fixes: 2 },
    ],
  });
  assert.equal(combined.order, 'combined');
  assert.deepEqual(combined.lines.map((l) => [l.line, l.fixes]), [[8, 2], [4, 0]]);
  const r = rows(combined);
  assert.equal(r[0].description, '#1 · ochiai 0.30 · fixes 2');
  assert.match(r[0].tooltip, /by ochiai and verified angelic fixes/);
  assert.match(r[0].tooltip, /makes 2 analysed failing tests pass/);
  assert.equal(r[0].level, LEVELS);
  assert.equal(lineLevel(combined.lines[1], 0.9), LEVELS);
  assert.equal(parseRanking(sample).order, 'formula');
});

test('under the learned order the tooltip names the model and says why a line stands where it does', () => {
  const why = 'Rank 1 of 3 under the learned order (model m1): weighed most by ochiai 1; executed by the one failing and none of the 2 passing tests.';
  const learned = parseRanking({
    formula: 'ochiai',
    order: 'learned',
    model: 'm1',
    failed: 1,
    passed: 2,
    lines: [{ uri: 'file:///m/a.go', file: 'a.go', line: 6, score: 1, rank: 1, tie: [1, 1], ef: 1, ep: 0, nf: 0, np: 2, why }],
  });
  assert.equal(learned.order, 'learned');
  const r = rows(learned);
  assert.match(r[0].tooltip, /by the learned order \(model m1\)/);
  assert.ok(r[0].tooltip.endsWith(`\n${why}`), r[0].tooltip);
  assert.equal(parseRanking({ order: 'best' }).order, 'formula');
});

test('malformed ranking results are rejected or cleaned', () => {
  assert.throws(() => parseRanking(null), /returned null/);
  assert.throws(() => parseRanking('x'), /returned string/);
  const cleaned = parseRanking({ formula: 'dstar', lines: [{ uri: 'file:///a.go' }, { uri: 'file:///a.go', line: 3, score: 2, rank: 1 }, 5] });
  assert.equal(cleaned.lines.length, 1);
  assert.equal(cleaned.lines[0].file, 'file:///a.go');
  assert.equal(parseRanking({}).lines.length, 0);
});
