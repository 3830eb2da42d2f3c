// The operator-fix scenario of the VS Code end-to-end test: a module whose
// Ratio multiplies where it should divide (server/testdata/ratio.txtar),
// which no angelic value fixes. In a trusted window on it, with
// faultline.mutants set in the folder's settings, ratio.go:5 must offer
// "Apply verified operator fix", and the action, applied and saved, must
// leave the line reading `return a / b`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { openFile, openTrusted, chooseActionWhenOffered } = require('./workbench');
const { readTxtar } = require('./txtar');

const LINE = 5;
const FIXED = '\treturn a / b';

// operatorScenario runs the scenario in the page; ctx is as explainScenario's.
async function operatorScenario(ctx) {
  const { page, base, repo, work, artifacts, log, fail, timeout } = ctx;
  const dir = path.join(work, 'ratio');
  fs.mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  for (const [name, text] of readTxtar(path.join(repo, 'server', 'testdata', 'ratio.txtar'))) {
    fs.writeFileSync(path.join(dir, name), text);
  }
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'faultline.mutants': 50 }, null, 2));

  await openTrusted(page, base, dir, fail);
  await openFile(page, 'ratio.go');
  // The mutants run after the tests: ask until the action is offered.
  const { titles, after } = await chooseActionWhenOffered(page, LINE, /Apply verified operator fix/, { timeout, pause: 2000, fail });
  log(`operator: code actions on ratio.go:${LINE} after ${(after / 1000).toFixed(1)}s: ${titles.join(' | ')}`);
  await page.keyboard.press('Control+s');
  const file = path.join(dir, 'ratio.go');
  const deadline = Date.now() + 30000;
  let line = '';
  while (Date.now() < deadline) {
    line = fs.readFileSync(file, 'utf8').split('\n')[LINE - 1];
    if (line === FIXED) break;
    await page.waitForTimeout(250);
  }
  await page.screenshot({ path: path.join(artifacts, 'vscode-e2e-operator.png') });
  if (line !== FIXED) fail(`after the operator fix ratio.go:${LINE} reads ${JSON.stringify(line)}, want ${JSON.stringify(FIXED)}`);
  log(`operator: the fix applied and saved: ratio.go:${LINE} reads ${line.trim()}`);
}

module.exports = { operatorScenario };
