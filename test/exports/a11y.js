// Runs axe-core's WCAG 2.1 A and AA rules on faultline's HTML report in
// headless Chromium and fails on any serious or critical violation (all
// violations are printed, and written as JSON to the results file).
//
// usage: node a11y.js report.html results.json
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');

const [reportPath, resultsPath] = process.argv.slice(2);
const failing = new Set(['serious', 'critical']);

(async () => {
  // Playwright gives every launch a fresh, temporary profile directory
  // (its own --user-data-dir, a flag it refuses among args).
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  let violations;
  try {
    // The report's content security policy forbids scripts; axe is
    // injected past it, the page itself is unchanged.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(pathToFileURL(path.resolve(reportPath)).href, { waitUntil: 'load' });
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const results = await page.evaluate(() => window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    }));
    violations = results.violations;
  } finally {
    await browser.close();
  }
  fs.writeFileSync(resultsPath, JSON.stringify(violations, null, 2));
  let bad = 0;
  for (const v of violations) {
    const blocking = failing.has(v.impact);
    if (blocking) bad += v.nodes.length;
    console.log(`a11y: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length} elements)`);
    for (const n of v.nodes.slice(0, 3)) {
      console.log(`  ${n.target.join(' ')}: ${(n.failureSummary || '').split('\n').slice(1).join(' ').trim()}`);
    }
  }
  if (bad > 0) {
    console.error(`a11y: ${bad} elements with serious or critical WCAG 2.1 AA violations`);
    process.exit(1);
  }
  console.log(`a11y: no serious or critical violation (${violations.length} minor or moderate rules)`);
})().catch((err) => {
  console.error(`a11y: ${err.stack || err}`);
  process.exit(1);
});
