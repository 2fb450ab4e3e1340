/**
 * What environment.js and sequencer.js share inside one Stryker test-runner process, and the
 * dry run's record of which test file covers which mutant, kept in a file for the other runners.
 */
const fs = require('fs');
const path = require('path');

const COVERAGE_FILE = path.join(__dirname, '.coverage-by-file.json');
const ACTIVE_MUTANT = '__STRYKER_ACTIVE_MUTANT__';

const byFile = new Map();
const staticIds = new Set();
const durations = {};
let anyFailed = false;
let loaded;

function load() {
	if (loaded !== undefined) return;
	try {
		const saved = JSON.parse(fs.readFileSync(COVERAGE_FILE, 'utf8'));
		loaded = {
			files: Object.entries(saved.files).map(([file, ids]) => [file, new Set(ids)]),
			static: new Set(saved.static),
			durations: saved.durations || {},
		};
	} catch {
		loaded = null;
	}
}

module.exports = {
	mutantRun: () => process.env[ACTIVE_MUTANT] !== undefined,
	activeMutant: () => process.env[ACTIVE_MUTANT],
	failed: () => anyFailed,
	fail: () => {
		anyFailed = true;
	},
	startRun: () => {
		anyFailed = false;
	},

	record(testPath, id, duration, ids, staticNow) {
		durations[id] = duration;
		let ofFile = byFile.get(testPath);
		if (!ofFile) byFile.set(testPath, (ofFile = new Set()));
		for (const id of ids) ofFile.add(id);
		for (const id of staticNow) staticIds.add(id);
	},

	save() {
		if (byFile.size === 0) return;
		const files = {};
		for (const [file, ids] of byFile) files[file] = [...ids];
		fs.writeFileSync(COVERAGE_FILE, JSON.stringify({ files, static: [...staticIds], durations }));
	},

	/**
	 * How long a test may take under a mutant: a few times its dry-run time. A mutant that makes
	 * a test wait for ever (a retry loop, a page loop) then fails that test within seconds, where
	 * jest's 60 s test timeout, or Stryker's timeout of the whole run, would hold the runner for
	 * minutes.
	 */
	timeoutFor(id) {
		load();
		const dryRun = loaded && loaded.durations[id];
		return dryRun === undefined ? undefined : Math.max(5_000, 3 * dryRun + 2_000);
	},

	/** Test files that covered the mutant in the dry run, or undefined when all must run. */
	filesCovering(id) {
		load();
		// A mutant hit while a module loads or in a hook is not tied to a test: run every file.
		if (!loaded || loaded.static.has(id)) return undefined;
		const files = loaded.files.filter(([, ids]) => ids.has(id)).map(([file]) => file);
		return files.length > 0 ? new Set(files) : undefined;
	},
};
