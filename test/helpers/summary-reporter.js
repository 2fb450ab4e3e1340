/**
 * Ends a jest run with one plain line, "jest: N passed, N failed[, N skipped]", the form CI tools
 * read when they do not know jest's own summary.
 */
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		process.stdout.write(
			`jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed` +
				(skipped ? `, ${skipped} skipped` : '') +
				'\n',
		);
	}
}

module.exports = SummaryReporter;
