import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	checkDocs,
	FIRST_CUSTOMER_BY_LINE,
	FIRST_CUSTOMER_HEADING,
	README_JARGON,
	README_MAX_LINES,
	wordsIn,
} from './check-docs.cjs';

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

describe("the README's first screen and words (checked by checkDocs)", () => {
	const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

	it(`is at most ${README_MAX_LINES} lines, with "${FIRST_CUSTOMER_HEADING}" by line ${FIRST_CUSTOMER_BY_LINE}`, () => {
		const lines = readme.split('\n');
		expect(lines.length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(README_MAX_LINES);
		const at = lines.indexOf(FIRST_CUSTOMER_HEADING) + 1;
		expect(at).toBeGreaterThan(0);
		expect(at).toBeLessThanOrEqual(FIRST_CUSTOMER_BY_LINE);
	});

	it('finds the words as whole words and phrases, in any case, across line breaks', () => {
		const found = (text: string) => wordsIn(text, README_JARGON).map(({ word }) => word);
		expect(found('A Road, the\nPIN, one node\n  run, a list read.')).toEqual([
			'road',
			'the pin',
			'node run',
			'list read',
		]);
		expect(found('broad roads; the pinned node runner; a declaratively anchoredness')).toEqual([]);
		expect(found('fingerprint RoutingNode declarative anchored')).toHaveLength(4);
		expect(wordsIn(readme, README_JARGON)).toEqual([]);
	});
});
