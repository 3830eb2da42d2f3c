// readTxtar reads a txtar archive (the test modules of the repository's
// testdata) into its files, by name.
'use strict';
const fs = require('node:fs');

function readTxtar(file) {
  const files = new Map();
  let name;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const header = /^-- (.+) --$/.exec(line);
    if (header) {
      name = header[1];
      files.set(name, []);
    } else if (name !== undefined) {
      files.get(name).push(line);
    }
  }
  return new Map([...files].map(([n, lines]) => [n, lines.join('\n')]));
}

module.exports = { readTxtar };
