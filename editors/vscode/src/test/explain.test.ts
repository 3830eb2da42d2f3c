import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { firstRoot, moduleRoot } from '../explain';

test('the module root is the nearest directory with a go.mod', () => {
  const files = new Set(['/w/go.mod', '/w/sub/go.mod']);
  const exists = (f: string) => files.has(f);
  assert.equal(moduleRoot('/w/sub/pkg', exists), '/w/sub');
  assert.equal(moduleRoot('/w/pkg', exists), '/w');
  assert.equal(moduleRoot('/w', exists), '/w');
  assert.equal(moduleRoot('/elsewhere/pkg', exists), undefined);
});

test('the first root change is revealed, not an auxiliary one before it', () => {
  const ex = {
    test: 'TestMaxPlus',
    changes: [
      { file: 'internal/x.go', line: 3, role: 'auxiliary' },
      { file: 'internal/after.go', line: 10, role: 'root' },
      { file: 'after.go', line: 17, role: 'root' },
    ],
  };
  assert.deepEqual(firstRoot(ex, '/m'), { file: '/m/internal/after.go', line: 10 });
  // A change that only deletes may sit before line 1.
  assert.deepEqual(firstRoot({ changes: [{ file: 'a.go', line: 0, role: 'root' }] }, '/m'), { file: '/m/a.go', line: 1 });
});

test('an explanation without a root change, or no explanation, reveals nothing', () => {
  assert.equal(firstRoot({ test: 'TestX', message: 'passes at the base too' }, '/m'), undefined);
  assert.equal(firstRoot({ changes: [{ file: 'a.go', line: 2, role: 'auxiliary' }] }, '/m'), undefined);
  assert.equal(firstRoot(null, '/m'), undefined);
  assert.equal(firstRoot('text', '/m'), undefined);
});
