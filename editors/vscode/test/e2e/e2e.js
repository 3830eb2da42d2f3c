#!/usr/bin/env node
// End-to-end test of the faultline extension in a real VS Code (code-server)
// driven by headless Chromium through playwright-core: install the .vsix,
// open an untrusted copy of an example module whose .vscode/settings.json
// tries to trust it (nothing may start), then the module, trust it, open the
// faulty file, and check that the
// "Suspicious lines" view lists the faulty line first (or within the top N),
// that the line is highlighted, and, with default settings, that the angelic
// value is shown as an inlay hint and the "Preview angelic fix" action is
// offered on the line where faultline fix finds a verified candidate. Then
// explain a regression from a git history through its code lens and revert
// its root changes (explain.js), and apply a verified operator fix from its
// code action (operator.js). Any error notification or dialog other
// than the workspace-trust question fails the test.
// Screenshots are kept in the artifacts directory.
//
// usage: node e2e.js [example-dir]   (default: <repo>/examples/booking)
// env:   FAULTLINE_BIN   server binary (required)
//        VSIX            extension package (default: ../../faultline.vsix)
//        CHROMIUM        browser (default: /usr/bin/chromium)
//        ARTIFACTS       screenshot directory (default: ../../test-results)
//        FAULTLINE_TOP_N faulty line must be within this many rows (default 3)
//        FAULTLINE_E2E_TIMEOUT_MS  wait for the ranking (default 420000)
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { watchErrors, unexpectedShown, runCommand, openFile, openTrusted, goToLine, codeActions, chooseAction } = require('./workbench');
const { explainScenario } = require('./explain');
const { operatorScenario } = require('./operator');

const here = __dirname;
const repo = path.resolve(here, '..', '..', '..', '..');
const codeServer = path.join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const vsix = path.resolve(process.env.VSIX || path.join(here, '..', '..', 'faultline.vsix'));
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
const artifacts = path.resolve(process.env.ARTIFACTS || path.join(here, '..', '..', 'test-results'));
const topN = Number(process.env.FAULTLINE_TOP_N || 3);
const rankingTimeout = Number(process.env.FAULTLINE_E2E_TIMEOUT_MS || 420000);
const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

class Failure extends Error {}
const log = (msg) => console.log(`vscode-e2e: ${msg}`);
const fail = (msg) => {
  throw new Failure(msg);
};

function requireFile(file, what) {
  if (!fs.existsSync(file)) fail(`${what} not found at ${file}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, ms, child) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`code-server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`code-server did not answer on ${url} within ${ms / 1000}s`);
}

// lineHighlighted reports the background colours of decorations drawn on
// the given 1-based line of the visible editor.
async function lineDecorations(page, line) {
  return page.evaluate((lineNumber) => {
    const editor = document.querySelector('.editor-instance .monaco-editor');
    if (!editor) return { found: false, colours: [] };
    const numbers = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')];
    const number = numbers.find((n) => n.textContent.trim() === String(lineNumber));
    if (!number) return { found: false, colours: [] };
    const top = number.closest('.margin-view-overlays > div').style.top;
    const rows = [...editor.querySelectorAll('.view-overlays > div')].filter((d) => d.style.top === top);
    const colours = [];
    for (const row of rows) {
      for (const el of row.querySelectorAll('[class*="ced-"]')) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') colours.push(bg);
      }
    }
    return { found: true, colours };
  }, line);
}

// serverProcesses lists the processes running bin, read from /proc. It looks
// among root's descendants first; when the process tree is not what node's
// pids suggest (a sandbox's /proc from another pid namespace), it accepts any
// process running bin, whose path is this run's own build.
function serverProcesses(root, bin) {
  const want = fs.statSync(bin);
  const resolved = new Set([path.resolve(bin), fs.realpathSync(bin)]);
  const runsBin = (pid) => {
    try {
      const exe = fs.statSync(`/proc/${pid}/exe`);
      if (exe.dev === want.dev && exe.ino === want.ino) return true;
    } catch {
      // exited, or exe not readable: fall back to the command line
    }
    try {
      const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
      return resolved.has(argv0);
    } catch {
      return false;
    }
  };
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const children = new Map();
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(pid);
    } catch {
      // exited while listing
    }
  }
  const found = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()) || []) {
      queue.push(child);
      if (runsBin(child)) found.push(child);
    }
  }
  if (found.length > 0) return found;
  return pids.filter(runsBin);
}

// commandLines returns the command lines of the processes whose command
// line mentions word, as "pid: command line".
function commandLines(word) {
  const lines = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmd.includes(word)) lines.push(`${pid}: ${cmd.slice(0, 200)}`);
    } catch {
      // exited
    }
  }
  return lines;
}

// describeProcesses names every process whose command line mentions
// faultline, for a failure message.
function describeProcesses() {
  const lines = commandLines('faultline');
  return lines.length ? lines.join('\n') : '(none)';
}

async function main() {
  const moduleSrc = path.resolve(process.argv[2] || path.join(repo, 'examples', 'booking'));
  const bin = process.env.FAULTLINE_BIN;
  if (!bin) fail('FAULTLINE_BIN is not set (build it with: go build -o /tmp/faultline ./cmd/faultline)');
  requireFile(bin, 'FAULTLINE_BIN');
  requireFile(codeServer, 'code-server (run test/e2e/setup.sh)');
  requireFile(vsix, 'the .vsix (run npm run package)');
  requireFile(browserPath, 'chromium (apt-get install chromium)');
  requireFile(path.join(moduleSrc, 'fault.json'), 'fault.json');
  const fault = JSON.parse(fs.readFileSync(path.join(moduleSrc, 'fault.json'), 'utf8'));
  if (typeof fault.file !== 'string' || !Number.isInteger(fault.line)) fail(`${moduleSrc}/fault.json needs "file" and "line"`);
  fs.mkdirSync(artifacts, { recursive: true });

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-vscode-e2e-'));
  const angelicLine = verifiedCandidateLine(bin, moduleSrc, fault.file, work);
  const workspace = path.join(work, path.basename(moduleSrc));
  fs.cpSync(moduleSrc, workspace, { recursive: true });
  const untrusted = path.join(work, 'untrusted', path.basename(moduleSrc));
  fs.cpSync(moduleSrc, untrusted, { recursive: true });
  // The untrusted repository's own settings try to trust it.
  fs.mkdirSync(path.join(untrusted, '.vscode'));
  fs.writeFileSync(
    path.join(untrusted, '.vscode', 'settings.json'),
    JSON.stringify({ 'faultline.trust': 'always', 'faultline.autoRun': true }, null, 2),
  );
  const userData = path.join(work, 'user-data');
  const extensions = path.join(work, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'faultline.path': path.resolve(bin),
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'always',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'git.enabled': false,
        'window.restoreWindows': 'none',
      },
      null,
      2,
    ),
  );

  // code-server is a remote window: a machine-scoped setting such as
  // faultline.path is read from the remote machine's settings
  // (Machine/settings.json), not from the user's, as with VS Code's remote
  // extensions.
  const setServerPath = (file) =>
    fs.writeFileSync(path.join(userData, 'Machine', 'settings.json'), JSON.stringify({ 'faultline.path': path.resolve(file) }, null, 2));
  // faultline.path first names a server slow to start (a script that waits
  // before it runs a copy of bin), and is changed while it starts to
  // another copy: the server processes of either are this run's alone and
  // can be told apart.
  fs.mkdirSync(path.join(work, 'bin'));
  const copyBin = (name) => {
    const file = path.join(work, 'bin', name);
    fs.copyFileSync(bin, file);
    fs.chmodSync(file, 0o755);
    return file;
  };
  const firstBin = copyBin('first-faultline');
  const restartedBin = copyBin('faultline');
  const slowBin = path.join(work, 'bin', 'slow-faultline');
  fs.writeFileSync(slowBin, `#!/bin/sh\nsleep 5\nexec '${firstBin}' "$@"\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(userData, 'Machine'), { recursive: true });
  setServerPath(slowBin);

  const install = spawnSync(
    process.execPath,
    [codeServer, '--install-extension', vsix, '--extensions-dir', extensions, '--user-data-dir', userData],
    { encoding: 'utf8' },
  );
  if (install.status !== 0) fail(`installing the .vsix failed:\n${install.stdout}\n${install.stderr}`);
  log(`installed ${path.basename(vsix)}: ${install.stdout.trim().split('\n').pop()}`);

  const port = await freePort();
  const serverLog = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
  const server = spawn(
    process.execPath,
    [
      codeServer,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', userData,
      '--extensions-dir', extensions,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ],
    { stdio: ['ignore', serverLog, serverLog], detached: true },
  );
  let browser;
  const screenshot = path.join(artifacts, 'vscode-e2e.png');
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, 60000, server);
    log(`code-server on ${base}`);
    browser = await chromium.launch({ executablePath: browserPath, headless: true, args: chromiumFlags });
    const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    await watchErrors(page);
    // noErrorsShown fails the test on any error notification or dialog but
    // the trust question, before the page leaves a folder and at the end.
    const noErrorsShown = async (where) => {
      const shown = await unexpectedShown(page);
      if (shown.length) fail(`the workbench showed, ${where}:\n${shown.join('\n')}`);
    };
    try {
      // Untrusted first: the extension must stay off and run nothing,
      // whatever the workspace's .vscode/settings.json says.
      await page.goto(`${base}/?folder=${encodeURIComponent(untrusted)}`);
      await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
      log('workbench rendered');
      const distrust = page.getByRole('button', { name: /No, I don.t trust the authors/i });
      await distrust.waitFor({ timeout: 60000 }).catch(() => fail('the workspace-trust dialog did not appear'));
      await distrust.click();
      const off = page.locator('.statusbar-item', { hasText: /faultline: off/ });
      await off.first().waitFor({ timeout: 60000 }).catch(() => fail('no "faultline: off" status in the untrusted workspace'));
      if (serverProcesses(server.pid, bin).length > 0) fail('a faultline server runs in the untrusted workspace');
      log('untrusted workspace with faultline.trust "always" in .vscode/settings.json: extension off, no server process');
      await noErrorsShown('in the untrusted workspace');

      await openTrusted(page, base, workspace, fail);
      const slowDeadline = Date.now() + 60000;
      while (commandLines(slowBin).length === 0) {
        if (Date.now() > slowDeadline) fail(`the trusted workspace started no server (${slowBin}) within a minute`);
        await page.waitForTimeout(100);
      }
      // faultline.path changes while the server starts: the extension must
      // restart it on the new binary, register the server's commands once
      // (a second registration fails with "command ... already exists") and
      // leave no server of the old binary running.
      setServerPath(restartedBin);
      log(`workspace trusted; faultline.path changed from ${slowBin} to ${restartedBin} while the server starts`);

      await openFile(page, fault.file);
      const tabName = path.basename(fault.file);
      log(`opened ${fault.file}`);

      // The extension may still be starting after the trust reload: retry.
      const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Suspicious lines/i }) });
      for (let attempt = 1; ; attempt++) {
        await runCommand(page, 'faultline: Show suspicious lines');
        if (await view.waitFor({ timeout: 10000 }).then(() => true, () => false)) break;
        if (attempt === 6) fail('"faultline: Show suspicious lines" did not open the Suspicious lines view');
      }
      const started = Date.now();
      const rowLocator = view.locator('.monaco-list-row');
      await rowLocator.first().waitFor({ timeout: rankingTimeout }).catch(() => fail(`the Suspicious lines view stayed empty for ${rankingTimeout / 1000}s`));
      // The formula's ranking comes first; the angelic analysis then
      // reorders it: wait until the faulty line is within the top rows.
      const want = `${tabName}:${fault.line}`;
      let labels = [];
      let position = 0;
      const orderDeadline = Date.now() + rankingTimeout;
      for (;;) {
        labels = await rowLocator.evaluateAll((rows) =>
          rows.map((r) => {
            const name = r.querySelector('.label-name');
            const description = r.querySelector('.label-description');
            return [name ? name.textContent : r.innerText, description ? description.textContent : ''].join(' ').trim();
          }),
        );
        position = labels.findIndex((l) => l.startsWith(`${want} `) || l === want) + 1;
        if ((position > 0 && position <= topN) || Date.now() > orderDeadline) break;
        await page.waitForTimeout(1000);
      }
      log(`ranking shown after ${((Date.now() - started) / 1000).toFixed(1)}s:`);
      labels.forEach((l, i) => log(`  ${i + 1}. ${l}`));
      if (position === 0) fail(`the faulty line ${want} is not in the Suspicious lines view`);
      if (position > topN) fail(`the faulty line ${want} is row ${position}, want within the top ${topN}`);
      log(`faulty line is row ${position}`);
      let running = [];
      let stale = [];
      const restartDeadline = Date.now() + 60000;
      do {
        running = serverProcesses(server.pid, restartedBin);
        stale = serverProcesses(server.pid, firstBin);
        if (running.length > 0 && stale.length === 0) break;
        await page.waitForTimeout(500);
      } while (Date.now() < restartDeadline);
      if (running.length === 0) {
        fail(`no faultline server process runs the configured faultline.path ${restartedBin}; processes naming faultline:\n${describeProcesses()}`);
      }
      if (stale.length > 0) fail(`a server of the previous faultline.path ${slowBin} still runs after the restart:\n${describeProcesses()}`);
      log(`server process runs faultline.path: ${fs.readFileSync(`/proc/${running[0]}/cmdline`, 'utf8').split('\0').join(' ').trim()}`);

      // Click the row: the editor must reveal the line, and it must be coloured.
      // A click on a view that has not had focus may only focus it: open
      // the row again (Enter on the selected row) while the line is not shown.
      await rowLocator.nth(position - 1).click();
      let deco = { found: false, colours: [] };
      const decoDeadline = Date.now() + 30000;
      let nextOpen = Date.now() + 5000;
      while (Date.now() < decoDeadline) {
        deco = await lineDecorations(page, fault.line);
        if (deco.colours.length > 0) break;
        if (!deco.found && Date.now() > nextOpen) {
          await rowLocator.nth(position - 1).click();
          await page.keyboard.press('Enter');
          nextOpen = Date.now() + 5000;
        }
        await page.waitForTimeout(250);
      }
      if (!deco.found) fail(`line ${fault.line} is not visible in the editor after clicking its row`);
      if (deco.colours.length === 0) fail(`line ${fault.line} carries no faultline decoration`);
      log(`line ${fault.line} highlighted (${deco.colours.join(', ')})`);

      const status = await page.locator('.statusbar-item', { hasText: 'faultline' }).first().innerText().catch(() => '');
      log(`status bar: ${status.replace(/\s+/g, ' ').trim() || '(none)'}`);

      // Code actions on the faulty line (cursor is there after the click).
      await page.locator('.editor-instance .monaco-editor textarea').first().focus();
      const { menu, titles: actions } = await codeActions(page, 10000);
      log(`code actions: ${actions.length ? actions.join(' | ') : '(none)'}`);
      if (actions.length) {
        const actionsShot = path.join(artifacts, 'vscode-e2e-actions.png');
        await page.screenshot({ path: actionsShot });
        log(`screenshot: ${actionsShot}`);
      }
      // Server commands behind code actions are forwarded by the extension:
      // running one must not end in "command not found".
      if (actions.some((a) => /Show failing tests/.test(a))) {
        if (!(await chooseAction(page, menu, /Show failing tests/))) fail('could not select "Show failing tests" in the code-action menu');
        await page.waitForTimeout(3000);
        const toasts = await page.locator('.notifications-toasts').innerText().catch(() => '');
        if (/command .* not found/i.test(toasts)) fail(`running a server code action failed: ${toasts.trim()}`);
        log(`"Show failing tests" ran${toasts.trim() ? `: ${toasts.trim().split('\n')[0]}` : ''}`);
      }
      await page.keyboard.press('Escape');

      // With default settings the server analyzes the failing tests in the
      // background and offers "Preview angelic fix" where faultline fix
      // found a verified candidate, with the value as an inlay hint.
      const offered = await angelicActionAt(page, angelicLine);
      log(`angelic-fix action at line ${angelicLine}: ${offered}`);
      if (!offered.includes('→')) fail(`the angelic-fix action shows no edit of its line: ${offered}`);
      await page.keyboard.press('Escape');
      const hint = await inlayHintOn(page, angelicLine);
      log(`inlay hint on line ${angelicLine}: ${hint}`);
      await page.screenshot({ path: screenshot });
      log(`screenshot: ${screenshot}`);
      await noErrorsShown(`in ${path.basename(moduleSrc)}`);

      await explainScenario({ page, base, repo, work, artifacts, log, fail, timeout: rankingTimeout });
      await noErrorsShown('while explaining a regression');
      await operatorScenario({ page, base, repo, work, artifacts, log, fail, timeout: rankingTimeout });
      await noErrorsShown('while applying an operator fix');
    } catch (err) {
      for (const shown of await unexpectedShown(page).catch(() => [])) log(`the workbench showed ${shown}`);
      await page.screenshot({ path: screenshot }).catch(() => {});
      // VS Code's logs hold the extension's output channel and host errors.
      fs.cpSync(path.join(userData, 'logs'), path.join(artifacts, 'logs'), { recursive: true });
      throw err;
    }
  } finally {
    if (browser) await browser.close().catch(() => {});
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    // The servers the signal ends may still be writing their stores:
    // retry a removal that meets a directory filling up.
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

// verifiedCandidateLine runs faultline fix -json on a copy of the module and
// returns the line of the first verified candidate in the faulty file.
function verifiedCandidateLine(bin, moduleSrc, file, work) {
  const copy = path.join(work, 'fix', path.basename(moduleSrc));
  fs.cpSync(moduleSrc, copy, { recursive: true });
  const res = spawnSync(bin, ['fix', '-json'], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, FAULTLINE_CACHE: path.join(work, 'fix-cache') },
    timeout: 300000,
  });
  let report;
  try {
    report = JSON.parse(res.stdout);
  } catch {
    fail(`faultline fix -json gave no JSON (exit ${res.status}): ${res.stderr}`);
  }
  for (const t of report.tests || []) {
    for (const c of t.candidates || []) {
      const loc = c.verified && (c.locations || []).find((l) => l.file === file);
      if (loc) return loc.line;
    }
  }
  fail(`faultline fix found no verified candidate in ${file}: ${res.stdout}`);
}

// angelicActionAt moves the cursor to line and waits until its code actions
// include the angelic fix, returning that action's title.
async function angelicActionAt(page, line) {
  const deadline = Date.now() + 180000;
  let seen = [];
  while (Date.now() < deadline) {
    await goToLine(page, line);
    const { titles } = await codeActions(page, 5000);
    if (titles.length) {
      seen = titles;
      const angelic = seen.find((a) => /angelic/i.test(a));
      if (angelic) {
        await page.screenshot({ path: path.join(artifacts, 'vscode-e2e-angelic.png') });
        return angelic;
      }
    }
    await page.keyboard.press('Escape');
    await page.waitForTimeout(3000);
  }
  fail(`no angelic-fix action at line ${line} within 3 minutes; code actions seen: ${seen.join(' | ') || '(none)'}`);
}

// inlayHintOn waits until the editor's rendered line shows an angelic value
// as an inlay hint and returns the hint's text. A line's number in the
// gutter and its text are rendered at the same vertical offset.
async function inlayHintOn(page, line) {
  const deadline = Date.now() + 60000;
  let text = '';
  while (Date.now() < deadline) {
    text = await page
      .locator('.editor-instance .monaco-editor')
      .first()
      .evaluate((editor, n) => {
        const number = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')].find((e) => e.textContent.trim() === String(n));
        if (!number) return '';
        const top = number.closest('[style*="top"]').style.top;
        const row = [...editor.querySelectorAll('.view-lines .view-line')].find((l) => l.style.top === top);
        return row ? row.textContent : '';
      }, line)
      .catch(() => '');
    const m = /⇒\s*\S+/.exec(text);
    if (m) {
      await page.screenshot({ path: path.join(artifacts, 'vscode-e2e-hint.png') });
      return m[0];
    }
    await page.waitForTimeout(1000);
  }
  fail(`no angelic value shown as an inlay hint on line ${line} within a minute; the line reads: ${text}`);
}

main().then(
  () => {
    console.log('vscode-e2e: 1 passed, 0 failed');
  },
  (err) => {
    console.error(`vscode-e2e: FAIL: ${err instanceof Failure ? err.message : err.stack || err}`);
    console.error(`vscode-e2e: artifacts in ${artifacts}`);
    console.log('vscode-e2e: 0 passed, 1 failed');
    process.exitCode = 1;
  },
);
