/**
 * Every exported constant of nodes/ pinned as a whole: the texts messages are built from (tests
 * import them, so a change of wording fails nothing else), limits, defaults and deadlines.
 * Mutation testing leaves module constants alone (ignoreStatic); this is what notices a change. An
 * intended change: review the diff, then `npx jest -u test/node/constants-snapshot.test.cts`.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const NODES = join(__dirname, '../../nodes');

function sourceFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Data only: functions, classes and symbols are code, not constants. */
function isData(value: unknown): boolean {
	if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
	if (Array.isArray(value)) return value.every(isData);
	if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
		return Object.values(value as object).every(isData);
	}
	return false;
}

/**
 * Loaded when the file loads, not inside the test: module code that first runs inside a test is
 * "covered" by that test for Stryker, which would then mutate every description and text as if
 * this snapshot could guard them (they are static, and left out of the score, only so).
 */
const constants: Record<string, Record<string, unknown>> = {};
for (const file of sourceFiles(NODES).sort()) {
	const exports = jest.requireActual<Record<string, unknown>>(file);
	const data = Object.entries(exports).filter(
		([name, value]) => /^[A-Z][A-Z0-9_]*$/.test(name) && isData(value),
	);
	if (data.length > 0) constants[relative(NODES, file)] = Object.fromEntries(data);
}

it('every exported constant of nodes/', () => {
	expect(constants).toMatchSnapshot();
});
