/**
 * Writes stryker-incremental.json in one order, whatever order a run tested in: files and test
 * files by path, mutants by position, tests by position and name, with ids numbered in that
 * order. The same results then make the same file, so a commit's diff holds only what changed
 * (and git shows none of it: .gitattributes marks the file generated). Stryker matches earlier
 * results by file, position, mutator and replacement, and a test by its file and name, never by
 * id, so renumbering changes nothing it reuses. Run by `npm run test:mutation` and the checkpoint
 * reporter; `node test/mutation/normalize.js` after a run started otherwise.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const FILE = path.join(__dirname, 'stryker-incremental.json');

const byKey = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const position = (location) => [location?.start?.line ?? 0, location?.start?.column ?? 0];

function compareBy(...keys) {
	return (a, b) => {
		for (const key of keys) {
			const [x, y] = [key(a), key(b)].map((value) => (Array.isArray(value) ? value : [value]));
			for (let i = 0; i < x.length; i++) {
				const order = typeof x[i] === 'number' ? x[i] - y[i] : byKey(String(x[i]), String(y[i]));
				if (order !== 0) return order;
			}
		}
		return 0;
	};
}

/** The report in its one order; the input is not changed. */
function normalized(report) {
	const testIds = new Map();
	const testFiles = {};
	for (const name of Object.keys(report.testFiles ?? {}).sort(byKey)) {
		const file = report.testFiles[name];
		const tests = [...file.tests].sort(
			compareBy(
				(test) => position(test.location),
				(test) => test.name,
			),
		);
		testFiles[name] = {
			...file,
			tests: tests.map((test) => {
				const id = String(testIds.size);
				testIds.set(test.id, id);
				return { ...test, id };
			}),
		};
	}
	const renumber = (ids) =>
		ids === undefined
			? undefined
			: ids
					.map((id) => testIds.get(id) ?? id)
					.sort(compareBy((id) => (/^\d+$/.test(id) ? [0, Number(id), ''] : [1, 0, id])));

	let mutantId = 0;
	const files = {};
	for (const name of Object.keys(report.files).sort(byKey)) {
		const file = report.files[name];
		const mutants = [...file.mutants].sort(
			compareBy(
				(mutant) => position(mutant.location),
				(mutant) => [mutant.location?.end?.line ?? 0, mutant.location?.end?.column ?? 0],
				(mutant) => mutant.mutatorName,
				(mutant) => mutant.replacement ?? '',
			),
		);
		files[name] = {
			...file,
			mutants: mutants.map((mutant) => ({
				...mutant,
				id: String(mutantId++),
				killedBy: renumber(mutant.killedBy),
				coveredBy: renumber(mutant.coveredBy),
			})),
		};
	}
	return { ...report, files, testFiles };
}

function normalizeFile(file = FILE) {
	const report = JSON.parse(readFileSync(file, 'utf8'));
	writeFileSync(file, `${JSON.stringify(normalized(report), null, 2)}\n`);
}

module.exports = { normalized, normalizeFile };

if (require.main === module) normalizeFile(process.argv[2]);
