/**
 * The README's Installation, done as it says in a real n8n: the package packed from this clone
 * (`npm pack`), installed with `npm install --legacy-peer-deps <tarball>` in the user folder's
 * `.n8n/nodes`, and n8n started; and what n8n's N8N_UNVERIFIED_PACKAGES_ENABLED, whose default
 * n8n 3.0 turns to false, does to it on the n8n under test.
 */
import * as fs from 'node:fs';
import { closedPort } from '../helpers/fixtures.cjs';
import * as path from 'node:path';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	CACHE_DIR,
	cleanEnv,
	createUserFolder,
	e2eTarget,
	e2eVersion,
	ensureN8n,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	loadedTypes,
	nodeOutput,
	packPackage,
	runChecked,
	setupOwner,
	startN8n,
	type N8nInstall,
	type UserFolder,
	whyFailed,
} from './n8n.cjs';
import { exampleWorkflow, sandboxCredential } from './workflows.cjs';

const NODE_TYPE = 'n8n-nodes-business-crm.businessCrm';
const VARIABLE = 'N8N_UNVERIFIED_PACKAGES_ENABLED';

/**
 * Whether the n8n under test warns at start-up that the variable's default will change (its
 * deprecation list names it: 2.41, not 2.8.4 or 1.123). global-setup has installed it by now.
 */
const WARNS_OF_UNVERIFIED_DEFAULT = (() => {
	const file = path.join(
		CACHE_DIR,
		'n8n',
		e2eVersion(),
		'node_modules',
		'n8n',
		'dist',
		'deprecation',
		'deprecation.service.js',
	);
	return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(VARIABLE);
})();

/** The variable's settings to try: all three where this n8n speaks of it, else only unset. */
const SETTINGS: Array<[string, string | undefined]> = WARNS_OF_UNVERIFIED_DEFAULT
	? [
			['not set', undefined],
			['false', 'false'],
			['true', 'true'],
		]
	: [['not set', undefined]];

describe('installing from a clone, as the README says', () => {
	let sandbox: Sandbox;
	let install: N8nInstall;
	let tarball: string;
	const folders: UserFolder[] = [];

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2, customers: 30 });
		install = await ensureN8n(await e2eTarget());
		tarball = await packPackage();
	});

	afterAll(async () => {
		for (const folder of folders) folder.remove();
		await sandbox?.close();
	});

	/** A fresh n8n user folder with the package installed by the README's commands. */
	async function installedFromTarball(env: Record<string, string> = {}): Promise<UserFolder> {
		const folder = await createUserFolder(install, { env });
		folders.push(folder);
		const nodes = path.join(folder.dir, '.n8n', 'nodes');
		fs.mkdirSync(nodes, { recursive: true });
		// The registry is a closed port: the install must need nothing but the tarball.
		await runChecked(
			'npm',
			[
				'install',
				'--legacy-peer-deps',
				tarball,
				`--registry=http://127.0.0.1:${await closedPort()}`,
				'--no-audit',
				'--no-fund',
			],
			{ cwd: nodes, env: cleanEnv(), timeoutMs: 120_000 },
		);
		await importCredentials(folder, [sandboxCredential(sandbox)]);
		return folder;
	}

	it('npm install of the packed tarball in .n8n/nodes installs the package alone, with no download', async () => {
		const folder = await installedFromTarball();
		const nodes = path.join(folder.dir, '.n8n', 'nodes');
		const manifest = JSON.parse(fs.readFileSync(path.join(nodes, 'package.json'), 'utf8')) as {
			dependencies: Record<string, string>;
		};
		expect(Object.keys(manifest.dependencies)).toEqual(['n8n-nodes-business-crm']);
		// No second n8n-workflow beside n8n's own: the peer dependency is n8n's.
		expect(
			fs.readdirSync(path.join(nodes, 'node_modules')).filter((name) => !name.startsWith('.')),
		).toEqual(['n8n-nodes-business-crm']);
	});

	it.each(SETTINGS)(
		`with ${VARIABLE} %s, n8n loads the package and its workflows run`,
		async (_title, value) => {
			const env: Record<string, string> = value === undefined ? {} : { [VARIABLE]: value };
			const folder = await installedFromTarball(env);
			const n8n = await startN8n(folder);
			try {
				const session = await setupOwner(n8n.url);
				expect((await loadedTypes(n8n.url, session)).nodes).toContain(NODE_TYPE);
				// n8n 2.x (where its code has the warning) asks at start-up to set the variable;
				// setting it, to either value, ends the warning.
				const warned = n8n.output().includes(`${VARIABLE} -> The default for this variable`);
				expect(warned).toBe(value === undefined && WARNS_OF_UNVERIFIED_DEFAULT);
			} finally {
				await n8n.stop();
			}
			sandbox.clearLog();
			const id = await importWorkflow(folder, exampleWorkflow('export-all-customers.json'));
			const result = await executeWorkflow(folder, id);
			expect(whyFailed(result)).toBeUndefined();
			const { run } = result;
			expect(nodeOutput(run!, 'All Customers')).toHaveLength(sandbox.customers.length);
		},
	);
});
