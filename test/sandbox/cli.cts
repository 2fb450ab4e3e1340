/**
 * Run the sandbox API server from a terminal, for the demo and for trying requests by hand:
 *
 *   npx tsx test/sandbox/cli.cts [--port N] [--businesses N] [--customers N]
 *                               [--rate-limit N/windowMs | --rate-limit off]
 *                               [--shape paginated|array|content-array|content-businesses|content-items|data]
 *
 * Prints the URL, a working API key and organization ID, and a curl example, then serves until
 * Ctrl-C (SIGINT) or SIGTERM.
 */
import { parseArgs } from 'node:util';

import { startSandbox, type BusinessListShape, type SandboxOptions } from './server.cjs';

const USAGE = `Usage: npx tsx test/sandbox/cli.cts [options]
  --port N                 port on 127.0.0.1 (default 0 = a free port, printed below)
  --businesses N           businesses to seed (default 3)
  --customers N            customers to seed, round-robin over the businesses (default 50)
  --rate-limit N/windowMs  fixed-window limit per API key, e.g. 100/60000; "off" (default) for none
  --shape SHAPE            reply shape of GET /api/business/list/all (default paginated)
  --help                   show this text`;

class UsageError extends Error {}

function nonNegativeInteger(name: string, raw: string | undefined, fallback: number): number {
	if (raw === undefined) return fallback;
	if (!/^\d+$/.test(raw))
		throw new UsageError(`--${name} must be a non-negative integer, got "${raw}"`);
	return Number(raw);
}

function parseRateLimit(raw: string | undefined): SandboxOptions['rateLimit'] {
	if (raw === undefined || raw === 'off') return false;
	const match = /^(\d+)\/(\d+)$/.exec(raw);
	if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
		throw new UsageError(`--rate-limit must be N/windowMs (e.g. 100/60000) or off, got "${raw}"`);
	}
	return { limit: Number(match[1]), windowMs: Number(match[2]) };
}

function parseOptions(argv: string[]): SandboxOptions | 'help' {
	const { values } = parseArgs({
		args: argv,
		strict: true,
		options: {
			port: { type: 'string' },
			businesses: { type: 'string' },
			customers: { type: 'string' },
			'rate-limit': { type: 'string' },
			shape: { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
	});
	if (values.help) return 'help';
	const businesses = nonNegativeInteger('businesses', values.businesses, 3);
	// A handful of customers by default so the first curl shows something; 0 without businesses.
	const customers = nonNegativeInteger('customers', values.customers, businesses > 0 ? 50 : 0);
	if (customers > 0 && businesses === 0)
		throw new UsageError('--customers needs at least one business');
	return {
		port: nonNegativeInteger('port', values.port, 0),
		businesses,
		customers,
		rateLimit: parseRateLimit(values['rate-limit']),
		businessListShape: values.shape as BusinessListShape | undefined,
		// Nobody reads the log of a long-running manual server; keeping it would only grow memory.
		log: false,
	};
}

function shellQuote(text: string): string {
	return `'${text.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<void> {
	let options: SandboxOptions | 'help';
	try {
		options = parseOptions(process.argv.slice(2));
	} catch (error) {
		console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
		process.exitCode = 2;
		return;
	}
	if (options === 'help') {
		console.log(USAGE);
		return;
	}

	const sandbox = await startSandbox(options);
	const curl = [
		'curl -s',
		`-H ${shellQuote(`X-API-Key: ${sandbox.apiKey}`)}`,
		`-H ${shellQuote(`X-Organization-ID: ${sandbox.organizationId}`)}`,
		shellQuote(`${sandbox.url}/api/public/v1/customers?limit=5&offset=0`),
	].join(' ');
	const rate = options.rateLimit
		? `${options.rateLimit.limit} requests / ${options.rateLimit.windowMs} ms per key`
		: 'off';
	console.log(
		[
			`Sandbox API server listening on ${sandbox.url}`,
			`  API key:          ${sandbox.apiKey}`,
			`  Organization ID:  ${sandbox.organizationId}`,
			`  Read-only key:    ${sandbox.readOnlyApiKey}  (cannot add customers)`,
			`  Other-org key:    ${sandbox.otherOrgApiKey}  (organization ${sandbox.otherOrganizationId})`,
			`  Seeded:           ${sandbox.businesses.length} businesses, ${sandbox.customers.length} customers`,
			`  Rate limit:       ${rate}`,
			'',
			`Try: ${curl}`,
			'',
			'Press Ctrl-C to stop.',
		].join('\n'),
	);

	let stopping = false;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal} received, closing the sandbox...`);
		sandbox.close().then(
			() => {
				process.exitCode = 0;
			},
			(error: unknown) => {
				console.error(error);
				process.exitCode = 1;
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
