/**
 * Keeps what a long mutation run has found if the run is stopped before its end.
 *
 * Stryker 9 writes its incremental file only when a run finishes; a run stopped after an hour
 * loses the hour (saving on Ctrl+C came with Stryker 10, which needs Node 22). This reporter
 * writes the same file every few minutes from the results so far, in the shape Stryker writes
 * it, so the next run reuses them and tests only the rest. A finished run's own file wins: no
 * checkpoint is written once Stryker has its final report.
 *
 * STRYKER_CHECKPOINT_SECONDS sets the interval (default 120).
 */
const fs = require('node:fs');
const path = require('node:path');
const { normalized } = require('./normalize');

const everyMs = Number(process.env.STRYKER_CHECKPOINT_SECONDS ?? 120) * 1000;

/** Stryker's runners count lines and columns from 0; its report, from 1. */
function reportPosition(position) {
	return { line: position.line + 1, column: position.column + 1 };
}

class CheckpointReporter {
	static inject = ['options', 'logger'];

	constructor(options, log) {
		this.options = options;
		this.log = log;
		this.tests = [];
		this.results = [];
		this.sources = new Map();
		this.lastWrite = Date.now();
		this.finished = false;
	}

	onDryRunCompleted({ result }) {
		this.tests = result.tests;
	}

	onMutantTested(result) {
		this.results.push(result);
		if (this.finished || Date.now() - this.lastWrite < everyMs) return;
		this.lastWrite = Date.now();
		try {
			this.write();
		} catch (error) {
			this.log.warn(`Checkpoint not written: ${error.message}`);
		}
	}

	onMutationTestReportReady() {
		this.finished = true;
	}

	source(fileName) {
		if (!this.sources.has(fileName)) this.sources.set(fileName, fs.readFileSync(fileName, 'utf8'));
		return this.sources.get(fileName);
	}

	/** Synchronous, so that no checkpoint can land after Stryker's own final write. */
	write() {
		// Test ids become numbers, as in Stryker's own report, which keeps the file small.
		const ids = new Map(this.tests.map((test, index) => [test.id, String(index)]));
		const remap = (list) => list?.map((id) => ids.get(id) ?? id);
		const files = {};
		for (const { fileName, killedBy, coveredBy, ...mutant } of this.results) {
			const name = path.relative(process.cwd(), fileName);
			files[name] ??= { language: 'typescript', source: this.source(fileName), mutants: [] };
			files[name].mutants.push({
				...mutant,
				killedBy: remap(killedBy),
				coveredBy: remap(coveredBy),
			});
		}
		const testFiles = {};
		for (const test of this.tests) {
			const name = test.fileName ? path.relative(process.cwd(), test.fileName) : '';
			testFiles[name] ??= {
				source: test.fileName ? this.source(test.fileName) : undefined,
				tests: [],
			};
			testFiles[name].tests.push({
				id: ids.get(test.id),
				name: test.name,
				location: test.startPosition ? { start: reportPosition(test.startPosition) } : undefined,
			});
		}
		const report = {
			schemaVersion: '1.0',
			thresholds: this.options.thresholds,
			files,
			testFiles,
			projectRoot: process.cwd(),
		};
		const file = this.options.incrementalFile;
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(`${file}.partial`, `${JSON.stringify(normalized(report), null, 2)}\n`);
		fs.renameSync(`${file}.partial`, file);
		this.log.info(`Checkpoint: ${this.results.length} mutant results kept in ${file}.`);
	}
}

exports.strykerPlugins = [
	{ kind: 'Reporter', name: 'checkpoint', injectableClass: CheckpointReporter },
];
