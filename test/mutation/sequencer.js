/**
 * Runs, for one mutant, only the test files that covered it in the dry run, quickest first.
 * Stryker's jest runner selects tests by name only, so jest would otherwise load every test file
 * (about 10 s) for each of the ~2,700 mutants.
 */
const Sequencer = require('@jest/test-sequencer').default;
const shared = require('./shared-state');

class MutationSequencer extends Sequencer {
	sort(tests) {
		shared.startRun();
		const sorted = super.sort(tests);
		if (!shared.mutantRun()) return sorted;
		const covering = shared.filesCovering(shared.activeMutant());
		const selected = covering ? sorted.filter((test) => covering.has(test.path)) : sorted;
		// Jest runs the slowest files first, to balance its workers. Here one failure ends the run,
		// so the files that failed last time (they often kill the next mutant of the same code),
		// then the quickest files, go first.
		const rank = (test) => [this.hasFailed(test) ? 0 : 1, test.duration ?? Infinity];
		return [...selected].sort((a, b) => {
			const [failedA, timeA] = rank(a);
			const [failedB, timeB] = rank(b);
			return failedA - failedB || timeA - timeB;
		});
	}

	cacheResults(tests, results) {
		super.cacheResults(tests, results);
		if (!shared.mutantRun()) shared.save();
	}
}

module.exports = MutationSequencer;
