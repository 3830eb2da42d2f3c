#!/usr/bin/env node
// A scripted stand-in for `faultline serve` that speaks the faultline LSP
// surface (docs: brief protocol) from a fixed ranking, so the editor plugins'
// own behaviour can be tested without building Go code or running tests.
// usage: node mock-server.js <ranking.json>   (files in it relative to the root)
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const fixture = JSON.parse(fs.readFileSync(process.argv[2] || path.join(__dirname, 'ranking.json'), 'utf8'));
let root = process.cwd();
// The notifications the client asked for, as the real server honours them:
// the experimental capability "faultline" in initialize.
let wants = {};

function send(msg) {
  const body = Buffer.from(JSON.stringify(Object.assign({ jsonrpc: '2.0' }, msg)), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function ranking() {
  return {
    formula: fixture.formula,
    failed: fixture.failed,
    passed: fixture.passed,
    lines: fixture.lines.map((l) => Object.assign({}, l, { uri: pathToFileURL(path.join(root, l.file)).href })),
  };
}

function announce() {
  const total = fixture.failed + fixture.passed;
  if (wants.statusNotification) {
    send({ method: 'faultline/status', params: { state: 'running', done: 1, total, failing: 1, message: '' } });
    send({ method: 'faultline/status', params: { state: 'idle', done: total, total, failing: fixture.failed, message: '' } });
  }
  const top = ranking().lines[0];
  if (wants.rankingChangedNotification) {
    send({ method: 'faultline/rankingChanged', params: { failed: fixture.failed, passed: fixture.passed, top: top ? { uri: top.uri, line: top.line, score: top.score } : null } });
  }
}

function handle(msg) {
  switch (msg.method) {
    case 'initialize': {
      const p = msg.params || {};
      if (p.rootUri) root = new URL(p.rootUri).pathname;
      else if (p.rootPath) root = p.rootPath;
      wants = ((p.capabilities || {}).experimental || {}).faultline || {};
      send({ id: msg.id, result: { capabilities: { textDocumentSync: 1, executeCommandProvider: { commands: ['faultline.run'] } }, serverInfo: { name: 'faultline-mock' } } });
      return;
    }
    case 'initialized':
      announce();
      return;
    case 'faultline/ranking':
      send({ id: msg.id, result: ranking() });
      return;
    case 'workspace/executeCommand':
      if (msg.params && msg.params.command === 'faultline.run') {
        announce();
        send({ id: msg.id, result: { modules: [{ root, failed: fixture.failed, passed: fixture.passed, buildErrors: 0 }] } });
      } else {
        send({ id: msg.id, result: null });
      }
      return;
    case 'shutdown':
      send({ id: msg.id, result: null });
      return;
    case 'exit':
      process.exit(0);
  }
  if (msg.id !== undefined && msg.method) {
    send({ id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
  }
}

let buf = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const sep = buf.indexOf('\r\n\r\n');
    if (sep < 0) return;
    const m = /Content-Length: *(\d+)/i.exec(buf.slice(0, sep).toString('ascii'));
    if (!m) throw new Error('mock-server: header without Content-Length');
    const len = Number(m[1]);
    if (buf.length < sep + 4 + len) return;
    const body = buf.slice(sep + 4, sep + 4 + len).toString('utf8');
    buf = buf.slice(sep + 4 + len);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
