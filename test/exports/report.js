// Opens faultline's HTML report in headless Chromium and checks that it
// renders (the overview, the ranking, the shaded source, the failing tests
// and the diagnosability are there and visible), that the console shows no
// error and that the page makes no request beyond loading its own file.
// Takes a full-page screenshot.
//
// usage: node report.js report.html screenshot.png
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');
const { pathToFileURL } = require('url');

const [reportPath, screenshot] = process.argv.slice(2);
const problems = [];

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageURL = pathToFileURL(path.resolve(reportPath)).href;
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('request', (req) => {
      if (req.url() !== pageURL) problems.push(`request: ${req.method()} ${req.url()}`);
    });
    await page.goto(pageURL, { waitUntil: 'load' });

    const count = async (selector) => page.locator(selector).count();
    const checks = {
      'overview arcs': await count('svg.sunburst path'),
      'ranking rows': await count('table.ranking tr'),
      'shaded source lines': await count('pre.source .l[style]'),
      'failing tests': await count('#tests .test'),
      'verified angelic values': await count('#tests li code'),
      'diagnosability metrics': await count('#diagnosability .metric'),
    };
    for (const [what, n] of Object.entries(checks)) {
      console.log(`report: ${n} ${what}`);
      if (n === 0) problems.push(`no ${what}`);
    }
    for (const id of ['overview', 'ranking', 'source', 'tests', 'diagnosability']) {
      if (!(await page.locator(`#${id}`).isVisible())) problems.push(`section #${id} is not visible`);
    }
    const box = await page.locator('svg.sunburst').boundingBox();
    if (!box || box.width < 300 || box.height < 300) problems.push(`overview drawn at ${JSON.stringify(box)}`);
    // Following a link of the ranking lands on the shaded line.
    const link = page.locator('table.ranking a').first();
    const target = (await link.getAttribute('href')).slice(1);
    await link.click();
    if (await page.evaluate(() => location.hash.slice(1)) !== target) problems.push(`the ranking's first link did not lead to #${target}`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`report: screenshot ${screenshot}`);
  } finally {
    await browser.close();
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(`report: ${p}`);
    process.exit(1);
  }
})().catch((err) => {
  console.error(`report: ${err.stack || err}`);
  process.exit(1);
});
