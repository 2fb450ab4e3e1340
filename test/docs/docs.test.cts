import { checkDocs } from './check-docs.cjs';

describe('the documentation', () => {
	it('has no broken link or anchor, and examples valid for the node as it is', () => {
		const { checked, problems, pending } = checkDocs();
		for (const page of pending) {
			console.warn(
				`PENDING: ${page} is linked but not in this branch yet; it arrives with another branch. ` +
					'Run npm run test:docs again after merging it.',
			);
		}
		// One line per problem, so a failure reads as a list of what to fix.
		expect(problems.join('\n')).toBe('');
		expect(checked).toMatch(/example workflows/);
	});
});
