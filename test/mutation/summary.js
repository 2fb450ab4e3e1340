/**
 * `npm run mutation:summary`: the score and counts of the committed mutation results, by file and
 * in all, read from stryker-incremental.json, so no document keeps counts by hand. Score as
 * Stryker counts it: detected (killed, timed out) over detected and undetected (survived, no
 * coverage). Static mutants (module constants, left alone by ignoreStatic) and runtime errors
 * count neither way.
 */
const { readFileSync } = require('node:fs');
const path = require('node:path');

const report = JSON.parse(readFileSync(path.join(__dirname, 'stryker-incremental.json'), 'utf8'));
const COLUMNS = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'Ignored'];

function counts(mutants) {
	const found = Object.fromEntries(COLUMNS.map((status) => [status, 0]));
	for (const { status } of mutants) if (status in found) found[status] += 1;
	const detected = found.Killed + found.Timeout;
	const valid = detected + found.Survived + found.NoCoverage;
	const score = valid === 0 ? '—' : `${((100 * detected) / valid).toFixed(2)} %`;
	return [score, ...COLUMNS.map((status) => String(found[status]))];
}

const rows = Object.entries(report.files)
	.sort(([a], [b]) => a.localeCompare(b))
	.map(([name, file]) => [name, ...counts(file.mutants)]);
const all = Object.values(report.files).flatMap((file) => file.mutants);
rows.push(['**in all**', ...counts(all)]);

const header = [
	'File',
	'Score',
	'Killed',
	'Timed out',
	'Survived',
	'No coverage',
	'Compile errors',
	'Static',
];
console.log(`| ${header.join(' | ')} |`);
console.log(
	`| --- | ${header
		.slice(1)
		.map(() => '---:')
		.join(' | ')} |`,
);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
