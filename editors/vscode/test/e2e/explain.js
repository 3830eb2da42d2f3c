// The explain scenario of the VS Code end-to-end test: a module whose git
// history holds a regression (the running example of
// regress/testdata/running.txtar: a base commit, then a commit that breaks
// TestMaxPlus with two changes and also makes two that do not matter to
// it). In a trusted window on it, the failing test's "explain" code lens
// must run faultline.explainTest; the Problems panel must then show a
// warning on each root change naming the change, the commit, its author
// date and subject, and the line it replaced. The palette command
// "faultline: Explain a failing test from the git history" must explain it
// again and reveal the first root change, and the "Preview revert" code
// action there must put back the root changes alone, leaving the other
// edits of the same commit as they are.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { runCommand, openFile, openTrusted, chooseActionWhenOffered } = require('./workbench');
const { readTxtar } = require('./txtar');

// The regression commit, as git records it: its subject and author date are
// what the diagnostic must name.
const SUBJECT = 'MaxPlus: unsorted inputs by default, new sum rules';
const AUTHOR_DATE = '2024-05-17T10:00:00+00:00';
const TEST = 'TestMaxPlus';
const COMMAND = 'faultline: Explain a failing test from the git history';
// Lines of after.go the explanation must name as root changes (the
// running example's c2 and c3), and lines the same commit changed that
// must survive the revert (c1 and c4).
const ROOT_LINES = [10, 17];
const OTHER_LINES = [4, 19];

// git runs git in dir and returns its output, failing on an error.
function git(dir, args, fail, env = {}) {
  const res = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (res.status !== 0) fail(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout.trim();
}

// buildHistory commits the archive's step 0 and then step 1 in a new
// repository at dir and returns the regression commit's hash and after.go
// at both steps.
function buildHistory(repo, dir, fail) {
  const files = readTxtar(path.join(repo, 'regress', 'testdata', 'running.txtar'));
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main'], fail);
  const who = ['-c', 'user.name=faultline', '-c', 'user.email=faultline@example.com', '-c', 'commit.gpgsign=false'];
  const steps = [
    { prefix: '0/', subject: 'MaxPlus', date: '2024-05-10T10:00:00+00:00' },
    { prefix: '1/', subject: SUBJECT, date: AUTHOR_DATE },
  ];
  for (const step of steps) {
    for (const [name, text] of files) {
      if (name.startsWith(step.prefix)) fs.writeFileSync(path.join(dir, name.slice(step.prefix.length)), text);
    }
    git(dir, ['add', '-A'], fail);
    git(dir, [...who, 'commit', '-q', '-m', step.subject], fail, { GIT_AUTHOR_DATE: step.date, GIT_COMMITTER_DATE: step.date });
  }
  return { commit: git(dir, ['rev-parse', 'HEAD'], fail), base: files.get('0/after.go'), broken: files.get('1/after.go') };
}

// problems opens the Problems panel and returns its rows' text.
async function problems(page) {
  await runCommand(page, 'Focus Problems');
  const rows = page.locator('.markers-panel .monaco-list-row');
  await rows.first().waitFor({ timeout: 5000 }).catch(() => {});
  return rows.evaluateAll((els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim()));
}

// explainScenario runs the scenario in the page; ctx holds the page, the
// code-server address (base), the repository root, a scratch directory
// (work), log, fail and how long to wait for the tests (timeout).
async function explainScenario(ctx) {
  const { page, base, repo, work, artifacts, log, fail, timeout } = ctx;
  const dir = path.join(work, 'history');
  const history = buildHistory(repo, dir, fail);
  const date = AUTHOR_DATE.slice(0, 10);
  const short = history.commit.slice(0, 12);

  await openTrusted(page, base, dir, fail);
  await openFile(page, 'after_test.go');
  const started = Date.now();
  // The lens comes once the tests ran and the module's history is known.
  const lens = page.locator('.codelens-decoration a', { hasText: `explain ${TEST} from the git history` });
  await lens.first().waitFor({ timeout }).catch(() => fail(`after_test.go shows no "explain ${TEST}" code lens within ${timeout / 1000}s`));
  log(`explain: code lens shown after ${((Date.now() - started) / 1000).toFixed(1)}s: ${(await lens.first().innerText()).trim()}`);
  await lens.first().click();

  const wants = ROOT_LINES.map((line) => ({
    line,
    text: `this change at after.go:${line}, from commit ${short} of ${date} "${SUBJECT}", makes ${TEST} fail`,
    was: `(was: ${history.base.split('\n')[line - 1].trim()})`,
  }));
  let rows = [];
  const deadline = Date.now() + timeout;
  for (;;) {
    rows = await problems(page);
    const missing = wants.filter((w) => !rows.some((r) => r.includes(w.text) && r.includes(w.was)));
    if (missing.length === 0) break;
    if (Date.now() > deadline) {
      fail(`the Problems panel does not say ${missing.map((w) => `"${w.text} … ${w.was}"`).join(' and ')}; it shows:\n${rows.join('\n') || '(nothing)'}`);
    }
    await page.waitForTimeout(2000);
  }
  log(`explain: explained after ${((Date.now() - started) / 1000).toFixed(1)}s; problems:`);
  rows.forEach((r) => log(`  ${r}`));
  const others = rows.filter((r) => OTHER_LINES.some((line) => r.includes(`after.go:${line},`)));
  if (others.length) fail(`changes that do not break ${TEST} are blamed:\n${others.join('\n')}`);

  // The palette command explains the test again, from after_test.go, and
  // reveals the first root change.
  const again = Date.now();
  await runCommand(page, COMMAND);
  const input = page.locator('.quick-input-widget', { hasText: /explain a failing test/i }).locator('input');
  await input.waitFor({ state: 'visible', timeout: 15000 }).catch(() => fail(`"${COMMAND}" did not ask for the test`));
  await input.fill(TEST);
  await page.keyboard.press('Enter');
  const active = page.locator('.tab.active', { has: page.locator('.label-name', { hasText: /^after\.go$/ }) });
  const cursor = page.locator('.statusbar-item', { hasText: new RegExp(`^Ln ${ROOT_LINES[0]}, Col 1`) });
  const revealed = await Promise.all([active.first().waitFor({ timeout }), cursor.first().waitFor({ timeout })]).then(() => true, () => false);
  if (!revealed) fail(`"${COMMAND}" did not reveal after.go:${ROOT_LINES[0]} within ${timeout / 1000}s`);
  log(`explain: "${COMMAND}" revealed after.go:${ROOT_LINES[0]} after ${((Date.now() - again) / 1000).toFixed(1)}s`);

  // The revert preview on a root change: applied and saved, after.go must
  // be the broken commit's with exactly the root lines put back.
  // On a loaded machine the first request may come before the editor has
  // the line's actions: ask until the action is offered.
  const { titles } = await chooseActionWhenOffered(page, ROOT_LINES[0], /Preview revert of the responsible change/, { timeout: 60000, pause: 1000, fail });
  log(`explain: code actions on after.go:${ROOT_LINES[0]}: ${titles.join(' | ')}`);
  await page.keyboard.press('Control+s');
  const want = history.broken.split('\n');
  const was = history.base.split('\n');
  for (const line of ROOT_LINES) want[line - 1] = was[line - 1];
  const file = path.join(dir, 'after.go');
  const saveDeadline = Date.now() + 30000;
  let got = '';
  while (Date.now() < saveDeadline) {
    got = fs.readFileSync(file, 'utf8');
    if (got !== history.broken) break;
    await page.waitForTimeout(250);
  }
  await page.screenshot({ path: path.join(artifacts, 'vscode-e2e-explain.png') });
  if (got !== want.join('\n')) {
    fail(`after the revert preview after.go should differ from the broken commit on lines ${ROOT_LINES.join(' and ')} alone; it reads:\n${got}`);
  }
  for (const line of OTHER_LINES) log(`explain: after.go:${line} kept: ${got.split('\n')[line - 1].trim()}`);
  log(`explain: the revert put back after.go:${ROOT_LINES.join(', ')} alone`);
}

module.exports = { explainScenario };
