/**
 * Carries Stryker's incremental results across moved files: `node test/mutation/follow-renames.js
 * <commit of the results>` renames the keys of `files` and `testFiles` in
 * stryker-incremental.json by git's rename detection between that commit and HEAD. Stryker then
 * diffs each file's old source against its new one and reuses only results whose code and killing
 * tests are unchanged, as for any incremental run. Without it, a moved file is re-tested whole.
 */
const { execFileSync } = require('child_process');
const { readFileSync, writeFileSync } = require('fs');
const path = require('path');

const since = process.argv[2];
if (!since) throw new Error('Give the commit the incremental results were made at.');
const file = path.join(__dirname, 'stryker-incremental.json');
const diff = execFileSync(
	'git',
	['diff', '-M30%', '--name-status', since, 'HEAD', '--', 'nodes', 'credentials', 'test'],
	{ encoding: 'utf8' },
);
const renamed = new Map(
	diff
		.split('\n')
		.map((line) => line.split('\t'))
		.filter(([status]) => status?.startsWith('R'))
		.map(([, from, to]) => [from, to]),
);
const results = JSON.parse(readFileSync(file, 'utf8'));
for (const section of ['files', 'testFiles']) {
	const names = Object.keys(results[section]);
	results[section] = Object.fromEntries(
		Object.entries(results[section]).map(([name, entry]) => [renamed.get(name) ?? name, entry]),
	);
	console.log(`${section}: ${names.filter((name) => renamed.has(name)).length} renamed`);
}
// As Stryker writes it, so the committed diff shows only the renames.
writeFileSync(file, JSON.stringify(results, null, 2));
