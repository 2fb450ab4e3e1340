/**
 * What bench.cts and profile.cts share: loading the node as it ships, the sandbox process, the
 * measurement of one run, and the clients being compared (the node through n8n-core, and bare
 * fetch loops).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { RunOptions, RunResult } from '../test/helpers/harness.cjs';
import type { Faults } from '../test/sandbox/server.cjs';
import type { SandboxCommand, SandboxReply } from './sandbox-process.cjs';

// n8n-core writes instance settings under the user folder as soon as it is imported: keep that
// out of ~/.n8n. This module loads first; the harness (and so n8n-core) only in loadHarness().
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-business-crm-bench-'));

/*
 * The node's own figures, written here rather than imported from nodes/ (whose shared modules
 * get renamed and moved): the one place to update if the node's values change. They label the
 * output, size the bare loops and give the expected request counts; the node runs with its own.
 */
/** The node's page size, its MAX_PAGE_SIZE: the most the API serves per page. */
export const PAGE_SIZE = 100;
/** The node's MAX_PARALLEL_REQUESTS; the concurrent bare loop uses the same parallelism. */
export const PARALLEL = 10;
/** The node's default Options › Pages Read at Once (DEFAULT_PAGES_IN_PARALLEL). */
export const DEFAULT_PAGES_IN_PARALLEL = 10;
const SAMPLE_EVERY_MS = 5;

const CUSTOMERS_PATH = '/api/public/v1/customers';
export const ADD_CUSTOMER_PATH = '/api/business/crm/customer/add';

/* ------------------------------------------------------------------------------------------ */
/* Setup                                                                                       */
/* ------------------------------------------------------------------------------------------ */

const loader = Module as unknown as {
	_resolveFilename: (request: string, ...rest: unknown[]) => string;
};

/**
 * The harness imports '../../nodes/BusinessCrm/BusinessCrm.node' without an extension, and under
 * tsx Node's resolver tries '.json' before '.ts': with the codex BusinessCrm.node.json beside the
 * source, that import would yield the codex instead of the node class. Jest resolves '.ts' first.
 */
let nodeSourceFirst = false;
function resolveNodeSourceFirst(): void {
	if (nodeSourceFirst) return;
	nodeSourceFirst = true;
	const resolve = loader._resolveFilename;
	loader._resolveFilename = function (request: string, ...rest: unknown[]) {
		const wanted = /\/BusinessCrm(Trigger)?\.node$/.test(request) ? `${request}.ts` : request;
		return resolve.call(this, wanted, ...rest);
	};
}

/** global.gc, from --expose-gc or, failing that, by setting the flag at runtime. */
function garbageCollector(): () => void {
	if (global.gc) return global.gc;
	setFlagsFromString('--expose-gc');
	return runInNewContext('gc') as () => void;
}
const collectGarbage = garbageCollector();

export interface SandboxInfo {
	url: string;
	apiKey: string;
	organizationId: string;
	businessId: string;
}

/** The sandbox server in its own process (see sandbox-process.cts for why). */
export class SandboxProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly info: SandboxInfo,
	) {}

	static async start(): Promise<SandboxProcess> {
		const child = fork(join(__dirname, 'sandbox-process.cts'), [], {
			execArgv: ['--require', 'tsx/cjs'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		const ready = await nextReply(child, 'ready');
		return new SandboxProcess(child, ready);
	}

	/** Every request is answered this many ms late (the sandbox's slow fault): a remote API. */
	async latency(ms: number): Promise<void> {
		await this.ask({ type: 'latency', ms }, 'latencySet');
	}

	async seed(customers: number): Promise<void> {
		await this.ask({ type: 'seed', customers }, 'seeded');
	}

	/** Adds customers at the end of the list, as the API's add endpoint would. */
	async append(customers: number): Promise<void> {
		await this.ask({ type: 'append', customers }, 'changed');
	}

	/** Deletes the customer at `index`. */
	async remove(index: number): Promise<void> {
		await this.ask({ type: 'remove', index }, 'changed');
	}

	/** Inserts one new customer before `index` (a list that is not append-ordered). */
	async insert(index: number): Promise<void> {
		await this.ask({ type: 'insert', index }, 'changed');
	}

	/** Replaces the sandbox's faults (see Faults in test/sandbox/server.cts); {} clears them. */
	async faults(faults: Faults): Promise<void> {
		await this.ask({ type: 'faults', faults }, 'faultsSet');
	}

	/** How many customers the CRM holds: each Create it answered 201 added one. */
	async customerCount(): Promise<number> {
		return (await this.ask({ type: 'countCustomers' }, 'customers')).customers;
	}

	/** Requests the server saw since the last call. */
	async takeRequestCount(): Promise<number> {
		return (await this.ask({ type: 'takeCount' }, 'count')).requests;
	}

	async close(): Promise<void> {
		await this.ask({ type: 'close' }, 'closed');
	}

	private ask<T extends SandboxReply['type']>(
		command: SandboxCommand,
		type: T,
	): Promise<Extract<SandboxReply, { type: T }>> {
		const reply = nextReply(this.child, type);
		this.child.send(command);
		return reply;
	}
}

function nextReply<T extends SandboxReply['type']>(
	child: ChildProcess,
	type: T,
): Promise<Extract<SandboxReply, { type: T }>> {
	return new Promise((resolve, reject) => {
		const onMessage = (reply: SandboxReply) => {
			if (reply.type !== type) return;
			child.off('exit', onExit);
			child.off('message', onMessage);
			resolve(reply as Extract<SandboxReply, { type: T }>);
		};
		const onExit = (code: number | null) => {
			child.off('message', onMessage);
			reject(new Error(`The sandbox process exited (code ${code}) before answering "${type}"`));
		};
		child.on('message', onMessage);
		child.once('exit', onExit);
	});
}

/* ------------------------------------------------------------------------------------------ */
/* Measuring                                                                                   */
/* ------------------------------------------------------------------------------------------ */

export interface Sample {
	ms: number;
	/** Peak minus the baseline taken right after a full GC. */
	heapBytes: number;
	rssBytes: number;
	/** The process's whole RSS at its peak: the delta alone reads 0 once earlier runs grew it. */
	rssPeakBytes: number;
	/**
	 * This process's CPU time (user and system) during the run: it grows far less than wall time
	 * when other processes share the cores, so a guard on it holds on a busy CI machine.
	 */
	cpuMs: number;
	requests: number;
	items: number;
}

/**
 * Times one run and samples memory every few ms while it goes. The sampler is a timer on the
 * same event loop, so it fires whenever the client awaits the network: once per page at least.
 * The run returns its output, kept alive until the final sample so it is counted in the peak.
 */
export async function measure(
	sandbox: SandboxProcess,
	run: () => Promise<unknown[]>,
): Promise<Sample> {
	await sandbox.takeRequestCount(); // start counting from zero
	collectGarbage();
	const baseline = process.memoryUsage();
	let peakHeap = baseline.heapUsed;
	let peakRss = baseline.rss;
	const sample = () => {
		const now = process.memoryUsage();
		peakHeap = Math.max(peakHeap, now.heapUsed);
		peakRss = Math.max(peakRss, now.rss);
	};
	const sampler = setInterval(sample, SAMPLE_EVERY_MS);
	const cpuStart = process.cpuUsage();
	const start = performance.now();
	let output: unknown[];
	try {
		output = await run();
	} finally {
		clearInterval(sampler);
	}
	const ms = performance.now() - start;
	const cpu = process.cpuUsage(cpuStart);
	sample();
	return {
		ms,
		heapBytes: peakHeap - baseline.heapUsed,
		rssBytes: peakRss - baseline.rss,
		rssPeakBytes: peakRss,
		cpuMs: (cpu.user + cpu.system) / 1000,
		requests: await sandbox.takeRequestCount(),
		items: output.length,
	};
}

export interface Summary {
	ms: number;
	minMs: number;
	maxMs: number;
	heapBytes: number;
	minHeapBytes: number;
	maxHeapBytes: number;
	rssBytes: number;
	rssPeakBytes: number;
	/** Every run's CPU time: a guard reads each run, not a median. */
	cpuMs: number[];
	/** Every run's count, so a single run that made an extra request cannot hide. */
	requests: number[];
	items: number;
}

/**
 * Replaces one section of a results file (from its heading up to the next `## ` heading) with
 * `lines`, from the heading on; appends it when the file has none. The sections other scripts
 * write stay as they are.
 */
export function spliceSection(file: string, heading: string, lines: string[]): void {
	const old = readFileSync(file, 'utf8').trimEnd().split('\n');
	const section = lines.slice(lines.indexOf(heading));
	const bounds = sectionBounds(old, (line) => line === heading);
	const next = bounds
		? [...old.slice(0, bounds.start), ...section, ...old.slice(bounds.end)]
		: [...old, '', ...section];
	writeFileSync(file, `${next.join('\n').trimEnd()}\n`);
}

/**
 * Where a results file's section begins (its heading, the first line `isHeading` accepts) and
 * ends (the next `## ` heading, or the end of the file); undefined when it has none.
 */
export function sectionBounds(
	lines: string[],
	isHeading: (line: string) => boolean,
): { start: number; end: number } | undefined {
	const start = lines.findIndex(isHeading);
	if (start === -1) return undefined;
	const next = lines.findIndex((line, index) => index > start && line.startsWith('## '));
	return { start, end: next === -1 ? lines.length : next };
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarize(samples: Sample[]): Summary {
	const times = samples.map((s) => s.ms);
	return {
		ms: median(times),
		minMs: Math.min(...times),
		maxMs: Math.max(...times),
		heapBytes: median(samples.map((s) => s.heapBytes)),
		minHeapBytes: Math.min(...samples.map((s) => s.heapBytes)),
		maxHeapBytes: Math.max(...samples.map((s) => s.heapBytes)),
		rssBytes: median(samples.map((s) => s.rssBytes)),
		rssPeakBytes: median(samples.map((s) => s.rssPeakBytes)),
		cpuMs: samples.map((s) => s.cpuMs),
		requests: samples.map((s) => s.requests),
		items: median(samples.map((s) => s.items)),
	};
}

/* ------------------------------------------------------------------------------------------ */
/* Clients                                                                                     */
/* ------------------------------------------------------------------------------------------ */

export type RunNode = (options: RunOptions) => Promise<RunResult>;

function headersFor(info: SandboxInfo): Record<string, string> {
	// What the credential's generic auth adds, plus the Accept a JSON client sends.
	return {
		accept: 'application/json',
		'x-api-key': info.apiKey,
		'x-organization-id': info.organizationId,
	};
}

function credentialsFor(info: SandboxInfo): RunOptions['credentials'] {
	return { baseUrl: info.url, apiKey: info.apiKey, organizationId: info.organizationId };
}

function outputOf(result: RunResult): unknown[] {
	if (result.error) throw new Error(`The node failed: ${result.error.message}`);
	return result.items;
}

/** Return All; `pagesInParallel` sets Options › Pages Read at Once (unset: the default). */
export function nodeGetMany(runNode: RunNode, info: SandboxInfo, pagesInParallel?: number) {
	const options = pagesInParallel === undefined ? {} : { pagesInParallel };
	return async () =>
		outputOf(
			await runNode({
				credentials: credentialsFor(info),
				parameters: { resource: 'customer', operation: 'getAll', returnAll: true, options },
			}),
		);
}

interface CustomerPage {
	content: { customers: unknown[]; pagination: { hasMore: boolean; total?: number } };
}

/** One GET of the page of 100 at `offset`, as a bare client asks for it: no checks. */
function customerPage(info: SandboxInfo, headers: Record<string, string>) {
	return async (offset: number): Promise<CustomerPage['content']> => {
		const response = await fetch(
			`${info.url}${CUSTOMERS_PATH}?limit=${PAGE_SIZE}&offset=${offset}`,
			{ headers },
		);
		if (!response.ok) throw new Error(`GET customers answered ${response.status}`);
		return ((await response.json()) as CustomerPage).content;
	};
}

/**
 * The floor with pages at once: the first page gives the total, then the other pages of 100 are
 * asked for with `inFlight` requests at a time, as the node does by default. No checks, no
 * overlap: the least a client that reads ahead must wait for.
 */
export function bareGetManyAtOnce(info: SandboxInfo, inFlight = DEFAULT_PAGES_IN_PARALLEL) {
	const page = customerPage(info, headersFor(info));
	return async () => {
		const first = await page(0);
		const total = first.pagination.total ?? first.customers.length;
		const pages: unknown[][] = [first.customers];
		let next = PAGE_SIZE;
		const worker = async () => {
			while (next < total) {
				const offset = next;
				next += PAGE_SIZE;
				pages[offset / PAGE_SIZE] = (await page(offset)).customers;
			}
		};
		await Promise.all(Array.from({ length: inFlight }, worker));
		return pages.flat();
	};
}

/** The least any client must do: one GET per page of 100, follow hasMore, keep the items. */
export function bareGetMany(info: SandboxInfo) {
	const page = customerPage(info, headersFor(info));
	return async () => {
		const items: unknown[] = [];
		for (let offset = 0; ; offset += PAGE_SIZE) {
			const { customers, pagination } = await page(offset);
			for (const customer of customers) items.push(customer);
			if (!pagination.hasMore) return items;
		}
	};
}

function createInput(count: number) {
	return Array.from({ length: count }, (_, index) => ({ index }));
}

export function nodeCreate(runNode: RunNode, info: SandboxInfo, count: number) {
	const items = createInput(count);
	return async () =>
		outputOf(
			await runNode({
				credentials: credentialsFor(info),
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: { __rl: true, mode: 'id', value: info.businessId },
					firstName: 'Ada',
					lastName: 'Lovelace',
				},
				items,
			}),
		);
}

/**
 * The same Create by a declarative node with nothing of ours in it (test/helpers/
 * plain-declarative-node.cts), in the same harness: n8n's own per-item work and HTTP client, the
 * floor under any declarative node. n8n sends all of its items' requests at once.
 */
export function plainCreate(runNode: RunNode, info: SandboxInfo, count: number) {
	const items = createInput(count);
	// Loaded only now, as the harness is (loadHarness): n8n-core reads N8N_USER_FOLDER on load.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { plainDeclarativeCreate } = require('../test/helpers/plain-declarative-node.cjs') as {
		plainDeclarativeCreate: () => RunOptions['nodeType'];
	};
	const nodeType = plainDeclarativeCreate();
	return async () =>
		outputOf(
			await runNode({
				credentials: credentialsFor(info),
				nodeType,
				parameters: {
					operation: 'create',
					businessId: info.businessId,
					firstName: 'Ada',
					lastName: 'Lovelace',
				},
				items,
			}),
		);
}

/** POSTs `count` customers with at most `parallel` requests in flight, keeping each reply. */
export function bareCreate(info: SandboxInfo, count: number, parallel: number) {
	const headers = { ...headersFor(info), 'content-type': 'application/json' };
	const body = JSON.stringify({
		businessId: info.businessId,
		firstName: 'Ada',
		lastName: 'Lovelace',
	});
	return async () => {
		const created: unknown[] = new Array(count);
		let next = 0;
		const worker = async () => {
			while (next < count) {
				const index = next++;
				const response = await fetch(`${info.url}${ADD_CUSTOMER_PATH}`, {
					method: 'POST',
					headers,
					body,
				});
				if (response.status !== 201) throw new Error(`POST customer answered ${response.status}`);
				created[index] = ((await response.json()) as { content: unknown }).content;
			}
		};
		await Promise.all(Array.from({ length: parallel }, worker));
		return created;
	};
}

/*
 * The harnesses are loaded with require(), not import(): the benchmarks run under `node --require
 * tsx/cjs`, Node's CommonJS loader with tsx compiling .cts and .ts as ts-jest does for the tests.
 * A dynamic import() would go to Node's ESM loader, which tsx/cjs does not hook. (Under
 * `--import tsx`, Node 20 loads a .cts entry through its ESM loader, whose require() then loads
 * the node's .ts files uncompiled: "Cannot use import statement outside a module".)
 */

type Harness = typeof import('../test/helpers/harness.cjs');
type PollHarness = typeof import('../test/helpers/poll-harness.cjs');

/** The harness, loaded only now so that the hook above and N8N_USER_FOLDER apply to it. */
export async function loadHarness(): Promise<RunNode> {
	resolveNodeSourceFirst();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require('../test/helpers/harness.cjs') as Harness).runNode;
}

/** The trigger's poll harness, loaded the same way. */
export async function loadPollHarness(): Promise<PollHarness> {
	resolveNodeSourceFirst();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require('../test/helpers/poll-harness.cjs') as PollHarness;
}
