/**
 * The in-process suite as Stryker runs it for every mutant. Left out: the suites that test dist/,
 * the tarball or the sandbox itself (a mutant of the TypeScript source never reaches them), the
 * layout test (it reads the source files, which Stryker's instrumented copies make longer), and the one test
 * that waits 30 s for a silent API (`global.MUTATION_RUN`): test/api/failures.test.cts guards the same
 * message without the wait.
 */
const path = require('path');
// Not maxWorkers: Stryker runs its own test runners side by side.
const {
	collectCoverageFrom,
	coverageThreshold,
	maxWorkers,
	...base
} = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	rootDir: '../..',
	reporters: ['default'],
	testPathIgnorePatterns: [
		...base.testPathIgnorePatterns,
		'/test/package/package-load.test.cts',
		'/test/package/scan-package.test.cts',
		'/test/e2e-helpers.test.cts',
		'/test/sandbox.test.cts',
		'/test/package/tarball.test.cts',
		'/test/architecture.test.cts',
		// The mutation tooling's own tests: they run no code of nodes/.
		'/test/mutation/',
	],
	globals: { MUTATION_RUN: true },
	// Absolute paths: Stryker loads the environment itself, without resolving <rootDir>.
	testEnvironment: path.join(__dirname, 'environment.js'),
	testSequencer: path.join(__dirname, 'sequencer.js'),
};
