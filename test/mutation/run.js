/**
 * `npm run test:mutation [-- --mutate a.ts,b.ts]`: Stryker with the arguments given, then the
 * results file written in its one order (normalize.js), whatever the run's outcome, so that each
 * commit of it differs only where the results did. Exits with Stryker's status.
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { normalizeFile } = require('./normalize');

const stryker = spawnSync('npx', ['stryker', 'run', ...process.argv.slice(2)], {
	stdio: 'inherit',
	cwd: path.join(__dirname, '..', '..'),
});
if (existsSync(path.join(__dirname, 'stryker-incremental.json'))) normalizeFile();
process.exit(stryker.status ?? 1);
