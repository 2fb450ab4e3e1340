/**
 * Whether the committed mutation results are older than the code: `node test/mutation/current.js`
 * exits 1, naming the files, when the source of a file Stryker would mutate or of a test file its
 * jest config runs differs from the one stryker-incremental.json recorded, or is new or gone.
 * Stryker then has mutants to re-test, more than CI's bound allows, so CI says so at once instead
 * of running into the bound to say the same. Exit 0 does not prove the results complete: a run
 * stopped early records the files it began with only the mutants it tested, and the bounded run
 * in CI finds those.
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
console.log(
	'Mutation results were made from the code as it is (every mutated file and test file).',
);
