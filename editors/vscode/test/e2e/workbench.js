// Steps of the VS Code end-to-end tests that drive the workbench through
// playwright-core: the command palette, Quick Open, the workspace-trust
// dialog, the cursor, code actions, and a record of every error
// notification and dialog the workbench shows.
'use strict';

// TRUST_DIALOG is the one dialog the tests expect: VS Code's question
// whether the folder's authors are trusted.
const TRUST_DIALOG = /trust the authors/i;

// watchErrors makes every page the test opens record the error
// notifications and modal dialogs it shows, in window.__e2eShown, as they
// appear: an error toast can be dismissed or replaced before the test
// looks, so the record is kept by the page itself.
async function watchErrors(page) {
  await page.addInitScript(() => {
    const shown = [];
    window.__e2eShown = shown;
    const record = (kind, el) => {
      const text = (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
      if (text && !shown.some((s) => s.kind === kind && s.text === text)) shown.push({ kind, text });
    };
    const scan = () => {
      for (const icon of document.querySelectorAll('.notification-list-item-icon.codicon-error')) {
        record('error notification', icon.closest('.notification-list-item') || icon);
      }
      for (const dialog of document.querySelectorAll('.monaco-dialog-box')) record('dialog', dialog);
    };
    // Scanning on every mutation of the workbench would be costly: scan at
    // most every 100 ms, but always after a change.
    let pending = false;
    new MutationObserver(() => {
      if (pending) return;
      pending = true;
      setTimeout(() => {
        pending = false;
        scan();
      }, 100);
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
  });
}

// unexpectedShown returns the error notifications and dialogs the page has
// shown so far, other than the workspace-trust dialog, as lines.
async function unexpectedShown(page) {
  await page.waitForTimeout(200); // let a pending scan run
  const shown = await page.evaluate(() => window.__e2eShown || []);
  return shown.filter((s) => !(s.kind === 'dialog' && TRUST_DIALOG.test(s.text))).map((s) => `${s.kind}: ${s.text}`);
}

// runCommand runs a command from the command palette by its title.
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

// openFile opens a workspace file through Quick Open and waits for its tab.
// Quick Open lists recently opened files first and matches loosely
// ("after.go" matches after_test.go): the row picked is the first whose
// name is the file's.
async function openFile(page, file) {
  const name = file.split('/').pop();
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(file);
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) });
  await row.first().waitFor({ timeout: 30000 });
  await row.first().click();
  await page.locator('.tab', { has: page.locator('.label-name', { hasText: exact }) }).first().waitFor({ timeout: 30000 });
}

// openTrusted opens folder in the workbench and trusts it, failing with
// fail when the trust dialog does not come.
async function openTrusted(page, base, folder, fail) {
  await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
  const trust = page.getByRole('button', { name: /Yes, I trust the authors/i });
  await trust.waitFor({ timeout: 60000 }).catch(() => fail('the workspace-trust dialog did not appear'));
  await trust.click();
}

// goToLine puts the cursor at the start of a 1-based line of the active editor.
async function goToLine(page, line) {
  await page.locator('.editor-instance .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+g');
  await page.keyboard.type(String(line));
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

// codeActions opens the code-action menu at the cursor and returns the menu
// and its entries' titles (none when no menu opened within ms).
async function codeActions(page, ms) {
  await page.keyboard.press('Control+.');
  const menu = page.locator('.action-widget');
  if (!(await menu.waitFor({ timeout: ms }).then(() => true, () => false))) return { menu, titles: [] };
  const titles = await menu.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => r.innerText.trim()));
  return { menu, titles };
}

// chooseAction runs the entry of an open code-action menu whose title
// matches re, by keyboard (the menu re-renders under the pointer), and
// reports whether it found one.
async function chooseAction(page, menu, re) {
  for (let i = 0; i < 20; i++) {
    const focused = await menu.locator('.monaco-list-row.focused').innerText({ timeout: 2000 }).catch(() => '');
    if (re.test(focused)) {
      await page.keyboard.press('Enter');
      return true;
    }
    await page.keyboard.press('ArrowDown');
  }
  return false;
}

// chooseActionWhenOffered asks for the code actions on line until one
// whose title matches re is offered, then runs it; every pause ms apart,
// failing (fail) after timeout ms. It returns the menu's titles. The
// actions may come late: after the mutants run, or on a loaded machine.
async function chooseActionWhenOffered(page, line, re, { timeout, pause, fail }) {
  const started = Date.now();
  let titles = [];
  for (;;) {
    await goToLine(page, line);
    const actions = await codeActions(page, 5000);
    titles = actions.titles;
    if (titles.some((t) => re.test(t))) {
      if (!(await chooseAction(page, actions.menu, re))) fail(`could not choose ${re} on line ${line}`);
      return { titles, after: Date.now() - started };
    }
    await page.keyboard.press('Escape');
    if (Date.now() - started > timeout) {
      fail(`no action ${re} on line ${line} within ${timeout / 1000}s: ${titles.join(' | ') || '(none)'}`);
    }
    await page.waitForTimeout(pause);
  }
}

module.exports = { watchErrors, unexpectedShown, runCommand, openFile, openTrusted, goToLine, codeActions, chooseAction, chooseActionWhenOffered };
