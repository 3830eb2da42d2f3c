// Reads the SARIF log the multitool's validate command writes and fails
// when it reports an error (warnings are printed).
'use strict';
const fs = require('fs');

const log = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let errors = 0;
for (const run of log.runs || []) {
  for (const r of run.results || []) {
    const level = r.level || 'warning';
    const where = (r.locations || []).map((l) => {
      const p = l.physicalLocation || {};
      return `${(p.artifactLocation || {}).uri}:${(p.region || {}).startLine}`;
    }).join(' ');
    const m = r.message || {};
    const text = m.text || (m.arguments || []).join('; ');
    console.log(`  ${level} ${r.ruleId} at ${where}: ${text}`);
    if (level === 'error') errors++;
  }
  for (const inv of run.invocations || []) {
    for (const n of inv.toolExecutionNotifications || []) {
      if (n.level === 'error') {
        console.log(`  tool error: ${(n.message || {}).text}`);
        errors++;
      }
    }
  }
}
if (errors > 0) {
  console.error(`validation: ${errors} errors`);
  process.exit(1);
}
