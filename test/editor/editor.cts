/**
 * `npm run editor [-- --port N] [-- --version 2.41.1]`: the n8n editor with this package, to click
 * through by hand. Starts the sandbox API, a real n8n from .cache (installed on first use) with the
 * packed package installed, an owner account, a Business CRM credential for the sandbox and the
 * example workflows; prints where to go; Ctrl-C stops everything and deletes the n8n folder.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

import { startSandbox } from '../sandbox/server.cjs';
import {
	DEFAULT_N8N_VERSION,
	ensureNode,
	importWorkflow,
	OWNER,
	REPO_ROOT,
	setupOwner,
	startN8n,
} from '../e2e/n8n.cjs';
import { testedVersions } from '../e2e/versions.cjs';
import { exampleWorkflow, prepareN8n } from '../e2e/workflows.cjs';

interface PackageJson {
	scripts: Record<string, string>;
}

/** The n8n versions CI tests the package on, and the Node.js each runs on (undefined: this one). */
const SUPPORTED = testedVersions(
	(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson)
		.scripts,
	DEFAULT_N8N_VERSION,
);

const USAGE = `Usage: npm run editor [-- --port N] [-- --version ${Object.keys(SUPPORTED).join('|')}]
  --port N      port of the n8n editor on 127.0.0.1 (default: a free one)
  --version V   n8n version (default ${DEFAULT_N8N_VERSION}); the first run of a version installs it into .cache`;

class UsageError extends Error {}

function parseOptions(argv: string[]): { port?: number; version: string } | 'help' {
	const { values } = parseArgs({
		args: argv,
		strict: true,
		options: {
			port: { type: 'string' },
			version: { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
	});
	if (values.help) return 'help';
	const version = values.version ?? DEFAULT_N8N_VERSION;
	if (!(version in SUPPORTED)) {
		throw new UsageError(
			`--version ${version} is not one the package is tested on; use ${Object.keys(SUPPORTED).join(' or ')}`,
		);
	}
	if (values.port === undefined) return { version };
	const port = Number(values.port);
	if (!/^\d+$/.test(values.port) || port < 1 || port > 65535) {
		throw new UsageError(`--port must be a whole number from 1 to 65535, got "${values.port}"`);
	}
	return { port, version };
}

/** A clear message now, rather than n8n failing to start after a minute of preparation. */
async function checkPortFree(port: number): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const server = net.createServer();
		server.once('error', (error: NodeJS.ErrnoException) =>
			reject(
				new UsageError(
					error.code === 'EADDRINUSE'
						? `port ${port} on 127.0.0.1 is in use; choose another with --port, or leave it out for a free one`
						: `cannot listen on 127.0.0.1:${port}: ${error.message}`,
				),
			),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
	});
}

function step(text: string): void {
	process.stderr.write(`• ${text}\n`);
}

async function main(): Promise<void> {
	let options: ReturnType<typeof parseOptions>;
	try {
		options = parseOptions(process.argv.slice(2));
		if (options !== 'help' && options.port !== undefined) await checkPortFree(options.port);
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
	if (options === 'help') {
		console.log(USAGE);
		return;
	}
	// Printed first; test/e2e/n8n.cts's own handler then stops n8n and deletes its folder.
	process.once('SIGINT', () => process.stderr.write('\nStopping n8n and the sandbox...\n'));

	step('Starting the sandbox API on 127.0.0.1');
	const sandbox = await startSandbox({ businesses: 5, customers: 240 });
	const node = SUPPORTED[options.version];
	const target = {
		version: options.version,
		nodeBinary: node === undefined ? undefined : await ensureNode(node),
	};
	step(
		`Preparing n8n ${options.version} with this package installed (the first run of a version installs n8n into .cache: a few minutes)`,
	);
	const { folder } = await prepareN8n(sandbox, [], { target, port: options.port });
	const examples = fs
		.readdirSync(path.join(REPO_ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'));
	const names: string[] = [];
	for (const file of examples) {
		const workflow = exampleWorkflow(file);
		await importWorkflow(folder, workflow);
		names.push(workflow.name);
	}
	step('Starting n8n');
	const n8n = await startN8n(folder);
	await setupOwner(n8n.url);

	console.log(`
n8n ${options.version} is running with n8n-nodes-business-crm installed.

  Editor     ${n8n.url}
  Login      ${OWNER.email} / ${OWNER.password}
  Sandbox    ${sandbox.url}  (API key ${sandbox.apiKey}, organization ${sandbox.organizationId};
             ${sandbox.businesses.length} businesses, ${sandbox.customers.length} customers)

The credential "Business CRM account" points at the sandbox, and these workflows use it:
${names.map((name) => `  - ${name}`).join('\n')}

What to try:
  - Open "${names.find((name) => name.includes('demo')) ?? names[0]}" and press Execute workflow.
  - In a new workflow, search the nodes panel for "Business CRM" (or "customer", "CRM"), add
    "Create a customer", pick a business from the list, type a name and press Execute step.
  - Get many customers with Return All: ${sandbox.customers.length} customers over several pages.
  - A first name of spaces: the node's error and its advice in the output panel.
  - Credentials: create a new Business CRM API credential with the sandbox's URL, key and
    organization above, or a wrong key, and see what Save's test says.

Press Ctrl-C to stop n8n and the sandbox (the temporary n8n folder is deleted).`);
	// Runs until Ctrl-C; the sandbox lives in this process, n8n in its own process group.
	await new Promise<never>(() => undefined);
}

main().catch((error: Error) => {
	console.error(`npm run editor failed: ${error.message}`);
	process.exit(1);
});
