/**
 * The shape of the code, as CONTRIBUTING.md's code map draws it: imports run one way between the
 * folders of nodes/BusinessCrm, no file re-exports another's symbols, and no file of the node or
 * the credential outgrows 250 lines. Read from the source files, so a new file is held to it too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '..');
const NODE = 'nodes/BusinessCrm';

/**
 * Each folder (or top-level file) of the node and what it may import, lowest first. A folder may
 * import itself and any folder of a lower rank; never one of its own rank or above.
 */
const RANKS: Record<string, number> = {
	context: 0,
	values: 0,
	errors: 1,
	credential: 1,
	api: 2,
	params: 3,
	state: 4,
	resources: 5,
	listSearch: 6,
	'BusinessCrm.node': 7,
	trigger: 7,
};

function sourceFiles(folder: string, suffix = '.ts'): string[] {
	return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
		const path = `${folder}/${entry.name}`;
		if (entry.isDirectory()) return sourceFiles(path, suffix);
		return entry.name.endsWith(suffix) ? [path] : [];
	});
}

/** The folder a file of nodes/ belongs to, as RANKS names it. */
function layerOf(path: string): string {
	if (path.startsWith('nodes/BusinessCrmTrigger/')) return 'trigger';
	const first = path.slice(NODE.length + 1).split('/')[0];
	return first.replace(/\.ts$/, '');
}

function relativeImports(path: string): string[] {
	const source = readFileSync(join(ROOT, path), 'utf8');
	return [...source.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) =>
		normalize(join(dirname(path), match[1])),
	);
}

const NODE_FILES = [...sourceFiles('nodes'), ...sourceFiles('credentials')];

/** CONTRIBUTING.md's section that places each module whose tests are not at the mirrored path. */
const TESTS_MAP_HEADING = "## Where a module's tests live";

/**
 * Where a module's tests are expected: nodes/BusinessCrm/<path>.ts at test/<path>.test.cts, the
 * trigger's at test/trigger/, the credential's at test/credential/.
 */
function mirroredTest(file: string): string {
	const base = file
		.replace(/^nodes\/BusinessCrm\//, 'test/')
		.replace(/^nodes\/BusinessCrmTrigger\//, 'test/trigger/')
		.replace(/^credentials\//, 'test/credential/');
	return base.replace(/\.ts$/, '.test.cts');
}

describe('the layout of the code', () => {
	it('gives every folder of the node a rank', () => {
		const unranked = sourceFiles('nodes')
			.map(layerOf)
			.filter((layer) => !(layer in RANKS));
		expect([...new Set(unranked)]).toEqual([]);
	});

	it('has imports run one way: down the ranks, never across or up', () => {
		const upward = sourceFiles('nodes').flatMap((file) =>
			relativeImports(file)
				.filter((target) => target.startsWith('nodes/'))
				.filter((target) => {
					const from = layerOf(file);
					const to = layerOf(target);
					return from !== to && RANKS[to] >= RANKS[from];
				})
				.map((target) => `${file} imports ${relative(ROOT, join(ROOT, target))}`),
		);
		expect(upward).toEqual([]);
	});

	it('has no file re-export what another file declares', () => {
		const reexports = NODE_FILES.filter((file) =>
			/^export (\*|\{[^}]*\}) from /m.test(readFileSync(join(ROOT, file), 'utf8')),
		);
		expect(reexports).toEqual([]);
	});

	it('keeps every file of the node and the credential at 250 lines or fewer', () => {
		const long = NODE_FILES.map((file) => ({
			file,
			lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1,
		})).filter(({ lines }) => lines > 250);
		expect(long).toEqual([]);
	});

	it("has each module's tests at the mirrored path, or a row in CONTRIBUTING's map saying where they are", () => {
		const contributing = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
		const map = contributing.slice(contributing.indexOf(TESTS_MAP_HEADING));
		const row = (module: string) => new RegExp(`^\\| \`${module}\` \\|`, 'm');
		const testFiles = new Set(sourceFiles('test', '.test.cts'));
		const unplaced = NODE_FILES.filter(
			(file) => !testFiles.has(mirroredTest(file)) && !row(file).test(map),
		);
		expect(contributing).toContain(TESTS_MAP_HEADING);
		expect(unplaced).toEqual([]);
		// A row for a module that has its mirrored test, or that is gone, would mislead.
		const stale = [...map.matchAll(/^\| `((?:nodes|credentials)\/[^`]+)` \|/gm)]
			.map((match) => match[1])
			.filter((file) => !NODE_FILES.includes(file) || testFiles.has(mirroredTest(file)));
		expect(stale).toEqual([]);
	});

	it('has the credential type import nothing of the node', () => {
		expect(relativeImports('credentials/BusinessCrmApi.credentials.ts')).toEqual([]);
	});
});
