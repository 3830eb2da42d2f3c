import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSummary, statusView } from '../status';
import { DEFAULTS, serverCommand, serverSettings } from '../settings';

const top = { uri: 'file:///m/booking/booking.go', line: 42, score: 0.87 };

test('status text while running', () => {
  const v = statusView({ state: 'running', done: 37, total: 120, failing: 2 }, top);
  assert.equal(v.text, '$(sync~spin) faultline: running 37/120 tests, 2 failing');
  assert.match(v.tooltip, /Most suspicious: booking\.go:42 \(score 0\.870\)/);
  assert.equal(v.error, false);
});

test('status text prefers the server message', () => {
  const v = statusView({ state: 'running', done: 1, total: 2, failing: 1, message: '1/2 packages done, 17 tests run, 1 failing' }, null);
  assert.equal(v.text, '$(sync~spin) faultline: 1/2 packages done, 17 tests run, 1 failing');
  assert.equal(statusView({ state: 'building', message: 'built 0/1 packages' }, null).text, '$(sync~spin) faultline: built 0/1 packages');
});

test('status text when idle names the top suspect', () => {
  assert.equal(statusView({ state: 'idle', done: 120, total: 120, failing: 2 }, top).text, '$(pulse) faultline: 2 failing · top booking.go:42');
  assert.equal(statusView({ state: 'idle', done: 3, total: 3, failing: 0 }, null).text, '$(pulse) faultline: no failing tests');
});

test('status text for build and errors', () => {
  assert.equal(statusView({ state: 'building' }, null).text, '$(sync~spin) faultline: building tests');
  const e = statusView({ state: 'error', message: 'calc.go:3: undefined: x' }, null);
  assert.equal(e.error, true);
  assert.equal(e.tooltip, 'calc.go:3: undefined: x');
  assert.equal(statusView(undefined, undefined).text, '$(pulse) faultline');
});

test('server settings fall back to defaults', () => {
  const values: Record<string, unknown> = { formula: 'dstar', top: 5 };
  const s = serverSettings((key) => values[key] as never);
  assert.deepEqual(s, { formula: 'dstar', top: 5, threshold: 0, autoRun: true, timeout: '60s', parallel: 0, angelic: true, order: 'learned', budget: '10s', maxAnalyzed: 10, mutants: 200, memory: 1024, testMemory: 0, trust: 'ask' });
  assert.equal(serverSettings((key) => (key === 'order' ? 'combined' : undefined) as never).order, 'combined', 'the order setting reaches the server');
  assert.equal(serverSettings((key) => (key === 'trust' ? 'never' : undefined) as never).trust, 'never', 'trust can be lowered');
  assert.equal(serverSettings((key) => (key === 'trust' ? 'always' : undefined) as never).trust, 'ask', 'a settings value cannot grant trust');
});

test('the order setting offers the orders faultline rank -order takes', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const order = manifest.contributes.configuration.properties['faultline.order'];
  assert.deepEqual(order.enum, ['formula', 'combined', 'learned']);
  assert.equal(order.enumDescriptions.length, order.enum.length);
});

test('every server setting is declared in package.json with the same default', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const declared = manifest.contributes.configuration.properties;
  for (const [key, value] of Object.entries(DEFAULTS)) {
    assert.ok(declared[`faultline.${key}`], `faultline.${key} is not declared`);
    assert.deepEqual(declared[`faultline.${key}`].default, value, `default of faultline.${key}`);
  }
  assert.equal(declared['faultline.trust'].scope, 'application', 'a workspace must not be able to trust itself');
});

test('server path resolution', () => {
  assert.equal(serverCommand(undefined, '/ws', '/home/u'), 'faultline');
  assert.equal(serverCommand('  ', '/ws', '/home/u'), 'faultline');
  assert.equal(serverCommand('/opt/faultline', '/ws', '/home/u'), '/opt/faultline');
  assert.equal(serverCommand('~/go/bin/faultline', '/ws', '/home/u'), '/home/u/go/bin/faultline');
  assert.equal(serverCommand('./bin/faultline', '/ws', '/home/u'), '/ws/bin/faultline');
  assert.equal(serverCommand('./bin/faultline', undefined, '/home/u'), './bin/faultline');
});

test('run summary', () => {
  assert.equal(runSummary({ modules: [{ root: '/w/calc', failed: 3, passed: 33, buildErrors: 0 }] }), 'calc: 3 failing, 33 passing');
  assert.equal(
    runSummary({ modules: [{ root: '/w/a', failed: 0, passed: 1, buildErrors: 2 }, { root: '/w/b', failed: 0, passed: 0, error: 'boom\nmore' }] }),
    'a: 0 failing, 1 passing, 2 packages did not build; b: error: boom',
  );
  assert.equal(runSummary(null), 'run finished');
});
