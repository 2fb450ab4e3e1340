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

function sourceFiles(folder: string): string[] {
	return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
		const path = `${folder}/${entry.name}`;
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
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

	it('has the credential type import nothing of the node', () => {
		expect(relativeImports('credentials/BusinessCrmApi.credentials.ts')).toEqual([]);
	});
});
