/**
 * The test environment of mutation runs: node's, plus what Stryker's jest runner cannot do for a
 * test run of one mutant, which it asks for by test name (`testNamePattern`):
 * - jest 29 still runs the `beforeAll` hooks of every describe block whose tests the pattern
 *   leaves out (each starts a sandbox API); such a block is skipped here;
 * - jest has no programmatic bail (Stryker's comment on its `bail: false`), so a mutant one test
 *   has killed would run every other test that covers it; after the first failure the rest of
 *   the run is skipped here.
 * - a test gets a few times its dry-run time (shared-state.js), not jest's 60 s.
 * In the dry run (no active mutant) it only records which test file covers which mutant, for
 * sequencer.js to leave out the files that cannot kill it, and how long each test took.
 */
const { TestEnvironment } = require('jest-environment-node');
const shared = require('./shared-state');

function willRun(block, testNamePattern) {
	if (block.mode === 'skip') return false;
	return block.children.some((child) =>
		child.type === 'describeBlock'
			? willRun(child, testNamePattern)
			: child.mode !== 'skip' && testNamePattern.test(testId(child)),
	);
}

/** The test's name as circus matches `testNamePattern` and Stryker names tests. */
function testId(test) {
	const names = [];
	for (let block = test; block && block.parent; block = block.parent) names.unshift(block.name);
	return names.join(' ');
}

class MutationEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.testPath = context.testPath;
	}

	async handleTestEvent(event, state) {
		// Stryker names the test that code runs for at test_start and forgets it at test_done, which
		// a skipped test never reaches: the next file's module loading would count as that test.
		if ((event.name === 'test_skip' || event.name === 'test_todo') && this.global.__stryker__)
			this.global.__stryker__.currentTestId = undefined;
		if (!shared.mutantRun()) {
			if (event.name === 'test_done') this.recordCoverage(event.test);
			return;
		}
		if (event.name === 'run_describe_start') {
			const block = event.describeBlock;
			if (shared.failed() || (state.testNamePattern && block.parent && !willRun(block, state.testNamePattern)))
				block.mode = 'skip';
		} else if (event.name === 'test_start') {
			if (shared.failed()) event.test.mode = 'skip';
			const timeout = shared.timeoutFor(testId(event.test));
			if (timeout !== undefined && !(event.test.timeout < timeout)) event.test.timeout = timeout;
		} else if (event.name === 'test_done' && event.test.errors.length > 0) {
			shared.fail();
		}
	}

	recordCoverage(test) {
		const coverage = this.global.__stryker__ && this.global.__stryker__.mutantCoverage;
		if (!coverage) return;
		const id = testId(test);
		shared.record(this.testPath, id, test.duration ?? 0, Object.keys(coverage.perTest[id] || {}), Object.keys(coverage.static || {}));
	}
}

module.exports = MutationEnvironment;
