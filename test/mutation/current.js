/**
 * Whether the committed mutation results are older than the code: `node test/mutation/current.js`
 * exits 1, naming the files, when the source of a file Stryker would mutate or of a test file its
 * jest config runs differs from the one stryker-incremental.json recorded, or is new or gone.
 * Stryker then has mutants to re-test, more than CI's bound allows, so CI says so at once instead
 * of running into the bound to say the same. It exits 1 too when a mutant of the code is missing
 * from the results: a run stopped early records the files it began with only the mutants it
 * tested.
 */
const { readFileSync, readdirSync } = require('fs');
const path = require('path');
const { ModuleKind, transpileModule } = require('typescript');

const root = path.join(__dirname, '..', '..');
const results = JSON.parse(readFileSync(path.join(__dirname, 'stryker-incremental.json'), 'utf8'));
const jest = require('./jest.config.js');

function walk(folder) {
	return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
		const name = path.posix.join(folder, entry.name);
		return entry.isDirectory() ? walk(name) : [name];
	});
}

// What stryker.config.json's "mutate" (nodes/**/*.ts, credentials/**/*.ts) and the mutation
// jest config's testMatch and testPathIgnorePatterns select.
// A file of types only has no code to mutate, and Stryker records no entry for it.
const hasCode = (name) =>
	transpileModule(readFileSync(path.join(root, name), 'utf8'), {
		compilerOptions: { module: ModuleKind.ESNext },
	})
		.outputText.replace(/^export \{\};\s*$/m, '')
		.trim() !== '';
const mutated = ['nodes', 'credentials']
	.flatMap(walk)
	.filter((name) => name.endsWith('.ts') && hasCode(name));
const ignored = jest.testPathIgnorePatterns.map((pattern) => new RegExp(pattern));
const tests = walk('test').filter(
	(name) => name.endsWith('.test.cts') && !ignored.some((pattern) => pattern.test(`/${name}`)),
);

const stale = [];
for (const [section, names] of [
	['files', mutated],
	['testFiles', tests],
]) {
	const recorded = results[section];
	for (const name of names) {
		if (!(name in recorded)) stale.push(`${name} (new)`);
		else if (recorded[name].source !== readFileSync(path.join(root, name), 'utf8'))
			stale.push(`${name} (changed)`);
	}
	for (const name of Object.keys(recorded)) {
		if (!names.includes(name)) stale.push(`${name} (gone)`);
	}
}

if (stale.length > 0) {
	console.log(
		`Mutation results are older than ${stale.length} files:\n  ${stale.join('\n  ')}`,
	);
	process.exit(1);
}

/**
 * Same sources, but are all their mutants recorded? A run stopped early keeps only the mutants it
 * tested. Stryker's own instrumenter lists every mutant of each file (the same for the same
 * source, Stryker version and mutator options); one missing from the results is one Stryker
 * would test first, so the bounded run in CI could not finish either.
 */
async function untested() {
	const { Instrumenter } = await import('@stryker-mutator/instrumenter');
	const quiet = () => false;
	const logger = {
		isTraceEnabled: quiet,
		isDebugEnabled: quiet,
		isInfoEnabled: quiet,
		trace() {},
		debug() {},
		info() {},
		warn: console.warn,
		error: console.error,
		fatal: console.error,
	};
	const config = JSON.parse(readFileSync(path.join(root, 'stryker.config.json'), 'utf8'));
	const { mutants } = await new Instrumenter(logger).instrument(
		mutated.map((name) => ({
			name,
			content: readFileSync(path.join(root, name), 'utf8'),
			mutate: true,
		})),
		{
			plugins: null,
			excludedMutations: config.mutator?.excludedMutations ?? [],
			ignorers: config.ignorers ?? [],
			noHeader: false,
		},
	);
	// The results count lines and columns from 1, the instrumenter from 0.
	const key = (name, mutatorName, replacement, line, column) =>
		[name, mutatorName, replacement, line, column].join('\u0000');
	const recorded = new Set(
		Object.entries(results.files).flatMap(([name, file]) =>
			file.mutants.map((m) =>
				key(name, m.mutatorName, m.replacement, m.location.start.line, m.location.start.column),
			),
		),
	);
	const missing = new Map();
	for (const m of mutants) {
		const { line, column } = m.location.start;
		if (recorded.has(key(m.fileName, m.mutatorName, m.replacement, line + 1, column + 1))) continue;
		missing.set(m.fileName, (missing.get(m.fileName) ?? 0) + 1);
	}
	return { count: mutants.length, missing };
}

untested().then(
	({ count, missing }) => {
		if (missing.size > 0) {
			const total = [...missing.values()].reduce((sum, n) => sum + n, 0);
			const lines = [...missing].map(([name, n]) => `${name} (${n} not in the results)`);
			console.log(
				`Mutation results are incomplete: ${total} of the code's ${count} mutants were never tested, in ${missing.size} files:\n  ${lines.join('\n  ')}`,
			);
			process.exit(1);
		}
		console.log(
			`Mutation results were made from the code as it is (every mutated file and test file), and hold all ${count} of its mutants.`,
		);
	},
	(error) => {
		console.error(error);
		process.exit(2);
	},
);
