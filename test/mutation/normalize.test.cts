/**
 * The results file in one order: the same results, tested in any order, make the same file, and
 * every mutant keeps the tests that killed and covered it (by test, not by id).
 */
import { normalized } from './normalize.js';

interface Test {
	id: string;
	name: string;
	location?: { start: { line: number; column: number } };
}
interface Mutant {
	id: string;
	mutatorName: string;
	replacement?: string;
	status: string;
	location: { start: { line: number; column: number }; end: { line: number; column: number } };
	killedBy?: string[];
	coveredBy?: string[];
}
interface Report {
	files: Record<string, { source: string; mutants: Mutant[] }>;
	testFiles: Record<string, { source: string; tests: Test[] }>;
}

const at = (line: number, column: number) => ({
	start: { line, column },
	end: { line, column: column + 1 },
});

/** One run's report: test ids and mutant ids as that run numbered them. */
function run(order: 'first' | 'second'): Report {
	const tests: Test[] = [
		{ id: 'a', name: 'adds Ada', location: { start: { line: 5, column: 2 } } },
		{ id: 'b', name: 'finds Ada', location: { start: { line: 9, column: 2 } } },
	];
	const [ada, find] = order === 'first' ? ['a', 'b'] : ['b', 'a'];
	const renamed =
		order === 'first' ? tests : tests.map((test) => ({ ...test, id: test.id === 'a' ? 'b' : 'a' }));
	const mutants: Mutant[] = [
		{
			id: '7',
			mutatorName: 'StringLiteral',
			status: 'Killed',
			location: at(3, 1),
			killedBy: [find],
			coveredBy: [find, ada],
		},
		{
			id: '8',
			mutatorName: 'BooleanLiteral',
			status: 'Survived',
			location: at(1, 4),
			coveredBy: [ada],
		},
	];
	const files = {
		'nodes/b.ts': { source: 'b', mutants: order === 'first' ? mutants : [...mutants].reverse() },
		'nodes/a.ts': { source: 'a', mutants: [{ ...mutants[1], id: '9', location: at(2, 2) }] },
	};
	return {
		files:
			order === 'first'
				? files
				: { 'nodes/a.ts': files['nodes/a.ts'], 'nodes/b.ts': files['nodes/b.ts'] },
		testFiles: {
			'test/a.test.cts': {
				source: 't',
				tests: order === 'first' ? renamed : [...renamed].reverse(),
			},
		},
	};
}

/** Each mutant by what Stryker matches it on, with the names of its killing and covering tests. */
function meaning(report: Report) {
	const names = new Map(
		Object.values(report.testFiles).flatMap((file) =>
			file.tests.map((test) => [test.id, test.name]),
		),
	);
	return Object.entries(report.files)
		.flatMap(([file, { mutants }]) =>
			mutants.map((m) => ({
				key: `${file}@${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`,
				status: m.status,
				killedBy: (m.killedBy ?? []).map((id) => names.get(id)).sort(),
				coveredBy: (m.coveredBy ?? []).map((id) => names.get(id)).sort(),
			})),
		)
		.sort((x, y) => x.key.localeCompare(y.key));
}

describe('the mutation results file in one order', () => {
	it('is the same file for the same results tested in another order', () => {
		expect(JSON.stringify(normalized(run('second')))).toBe(
			JSON.stringify(normalized(run('first'))),
		);
	});

	it('keeps each mutant with the tests that killed and covered it', () => {
		expect(meaning(normalized(run('second')) as Report)).toEqual(meaning(run('second')));
	});

	it('orders files by path and mutants by position, and numbers them in that order', () => {
		const { files } = normalized(run('second')) as Report;
		expect(Object.keys(files)).toEqual(['nodes/a.ts', 'nodes/b.ts']);
		expect(files['nodes/b.ts'].mutants.map((m) => [m.id, m.location.start.line])).toEqual([
			['1', 1],
			['2', 3],
		]);
	});
});
