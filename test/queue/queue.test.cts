/**
 * The packed package on n8n 2.8.4 in queue mode: Redis, Postgres, one main and two workers
 * (`n8n worker --concurrency=5`), each n8n process with its own copy of the package, all
 * against the sandbox API over 127.0.0.1.
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	callWebhook,
	createApiKey,
	createCredential,
	deactivateWorkflow,
	getExecution,
	loadedNodeType,
	publishWorkflow,
	startQueueCluster,
	userFolderFiles,
	type ExecutionSummary,
	type QueueCluster,
	type QueueProcess,
	type WebhookReply,
	workflowExecutions,
} from './cluster.cjs';
import { distNodeProperties, skipExistingValues } from './features.cjs';
import { nodeOutput, rest, type ExecutionWithData } from '../e2e/n8n.cjs';
import { snapshot, type RedisClient, type RedisEntry } from './redis.cjs';
import { connectionOwner } from './sockets.cjs';
import {
	createCustomerWorkflow,
	importWorkflow,
	newCustomerWorkflow,
	returnAllWorkflow,
} from './workflows.cjs';
import * as fs from 'node:fs';

const NODE_TYPE = 'n8n-nodes-business-crm.businessCrm';
const CUSTOMERS = '/api/public/v1/customers';
const ADD = '/api/business/crm/customer/add';
const IMPORT_ROWS = 500;
/** The import is killed once this many of its customers exist. */
const KILL_AFTER = 150;

/** Scenario 5's poll: every 5 s (n8n refuses a `*` in the seconds field, so they are listed). */
const POLL_MS = 5_000;
const EVERY_5_SECONDS = `${Array.from({ length: 12 }, (_, i) => i * 5).join(',')} * * * * *`;

/** Decided when the file loads, so the test list says which variant runs and why. */
const DIST_SKIP_EXISTING = skipExistingValues(distNodeProperties());

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(
	what: string,
	timeoutMs: number,
	check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await sleep(100);
	}
}

/** Values that stay the same for `quietMs` in a row (in-flight requests have landed). */
async function settled(read: () => number, quietMs = 1_500): Promise<number> {
	let value = read();
	let since = Date.now();
	while (Date.now() - since < quietMs) {
		await sleep(100);
		if (read() !== value) {
			value = read();
			since = Date.now();
		}
	}
	return value;
}

async function finishedExecution(
	cluster: QueueCluster,
	executionId: string,
	timeoutMs: number,
): Promise<ExecutionSummary> {
	return await waitUntil(`execution ${executionId} to end`, timeoutMs, async () => {
		const execution = await getExecution(cluster, executionId);
		return ['new', 'running'].includes(execution.status) ? undefined : execution;
	});
}

interface Sent {
	method: string;
	path: string;
	offset: string | undefined;
	/** 'main', 'worker-1', ... or 'unknown'. */
	from: string;
}

/** Every value seen in Redis while the suite ran, sampled every 100 ms. */
class RedisRecorder {
	readonly values = new Set<string>();
	readonly jobs = new Map<string, Record<string, string>>();
	snapshots = 0;
	private timer: NodeJS.Timeout | undefined;
	private busy = false;

	constructor(private readonly client: RedisClient) {}

	start(): void {
		this.timer = setInterval(() => void this.sample(), 100);
	}

	async sample(): Promise<void> {
		if (this.busy) return;
		this.busy = true;
		try {
			this.record(await snapshot(this.client));
		} catch {
			// Redis stopped at the end of the suite: nothing left to record.
		} finally {
			this.busy = false;
		}
	}

	private record(entries: RedisEntry[]): void {
		this.snapshots++;
		for (const entry of entries) {
			this.values.add(entry.key);
			for (const value of entry.values) this.values.add(value);
			// Bull keeps a job as the hash <prefix>:<queue>:<job id>.
			if (entry.type === 'hash' && /^bull:jobs:\d+$/.test(entry.key)) {
				const fields: Record<string, string> = { ...this.jobs.get(entry.key) };
				for (let i = 0; i + 1 < entry.values.length; i += 2)
					fields[entry.values[i] ?? ''] = entry.values[i + 1] ?? '';
				this.jobs.set(entry.key, fields);
			}
		}
	}

	async stop(): Promise<void> {
		clearInterval(this.timer);
		await this.sample();
	}
}

describe('Business CRM on n8n 2.8.4 in queue mode (main + 2 workers, Redis, Postgres)', () => {
	let sandbox: Sandbox;
	let bigSandbox: Sandbox;
	let cluster: QueueCluster;
	let redisClient: RedisClient;
	let recorder: RedisRecorder;
	let credential: { id: string; name: string };
	let businessId: string;
	/** Emails of the customers scenario 1 created, to find them in stored execution data. */
	let burstEmails: string[] = [];

	beforeAll(async () => {
		sandbox = await startSandbox({
			businesses: 2,
			customers: 0,
			rateLimit: { limit: 20, windowMs: 1000 },
		});
		bigSandbox = await startSandbox({ businesses: 1, customers: 10_000, log: true });
		businessId = sandbox.businesses[0]?.id ?? '';
		cluster = await startQueueCluster({ workers: 2, concurrency: 5 });
		redisClient = await cluster.redis.connect();
		recorder = new RedisRecorder(redisClient);
		recorder.start();
		credential = await createCredential(cluster, {
			name: 'Business CRM (rate-limited sandbox)',
			type: 'businessCrmApi',
			data: {
				baseUrl: sandbox.url,
				apiKey: sandbox.apiKey,
				organizationId: sandbox.organizationId,
			},
		});
	}, 360_000);

	afterAll(async () => {
		await recorder?.stop();
		redisClient?.close();
		await cluster?.stop();
		await sandbox?.close();
		await bigSandbox?.close();
	}, 120_000);

	beforeEach(() => {
		sandbox.clearLog();
		sandbox.customers.length = 0;
	});

	it('the main loaded the packed node, with the same Create options as dist/', async () => {
		const loaded = await loadedNodeType(cluster, NODE_TYPE);
		expect(loaded?.name).toBe(NODE_TYPE);
		expect(skipExistingValues(loaded?.properties ?? [])).toEqual(DIST_SKIP_EXISTING);
		expect(
			cluster
				.workers()
				.map((worker) => worker.name)
				.sort(),
		).toEqual(['worker-1', 'worker-2']);
	});

	it('scenario 1: 100 concurrent webhook calls at 20 requests/s: 100 executions succeed on both workers, 100 customers, none twice, no 429 reaches a caller', async () => {
		const path = 'queue-add-customer';
		await publishWorkflow(cluster, createCustomerWorkflow(path, credential, businessId));
		const calls = Array.from({ length: 100 }, (_, i) => ({
			firstName: `Burst${i}`,
			lastName: 'Caller',
			email: `burst-${i}@queue.test`,
		}));
		const replies = await Promise.all(
			calls.map(async (body) => await callWebhook(cluster, path, body)),
		);

		expect(replies.map((reply) => reply.status)).toEqual(calls.map(() => 200));
		replies.forEach((reply, i) => {
			expect(reply.body).toMatchObject({ email: calls[i]?.email, firstName: calls[i]?.firstName });
			expect((reply.body as { id?: string }).id).toMatch(/^cust_/);
		});
		expect(sandbox.customers).toHaveLength(100);
		expect(new Set(sandbox.customers.map((customer) => customer.email))).toEqual(
			new Set(calls.map((call) => call.email)),
		);
		expect(new Set(sandbox.customers.map((customer) => customer.id)).size).toBe(100);

		// The rate limit was really hit, and every 429 was waited out inside the executions.
		const adds = sandbox.requests.filter((request) => request.path === ADD);
		expect(adds.filter((request) => request.status === 429).length).toBeGreaterThan(0);
		expect(adds.filter((request) => request.status === 201)).toHaveLength(100);
		expect(adds.every((request) => request.headers['x-api-key'] === sandbox.apiKey)).toBe(true);

		const executionIds = replies.map((reply) => reply.executionId ?? '');
		expect(new Set(executionIds).size).toBe(100);
		const ranOn = new Map<string, number>();
		for (const id of executionIds) {
			const worker = cluster.workerOf(id);
			expect(worker).toBeDefined();
			ranOn.set(worker?.name ?? '', (ranOn.get(worker?.name ?? '') ?? 0) + 1);
		}
		expect([...ranOn.keys()].sort()).toEqual(['worker-1', 'worker-2']);
		expect(cluster.main.process.output()).not.toMatch(/Worker started execution/);
		burstEmails = calls.map((call) => call.email);
	});

	/**
	 * From now until `target.onRequest` is cleared: which n8n process sent each request to
	 * `target`, asked of the kernel while the request's connection is open.
	 */
	function recordSenders(target: Sandbox): Sent[] {
		const groups = new Map<number, string>();
		for (const entry of cluster.processes())
			if (!entry.ended && entry.process.pid !== undefined)
				groups.set(entry.process.pid, entry.name);
		const sent: Sent[] = [];
		target.onRequest = (entry, client) => {
			sent.push({
				method: entry.method,
				path: entry.path,
				offset: entry.query.offset,
				from: connectionOwner(client.port, target.port, groups),
			});
		};
		return sent;
	}

	it('scenario 2: Return All of 10,000 customers on a worker: every customer once, in ceil((N-1)/99) = 101 requests', async () => {
		const bigCredential = await createCredential(cluster, {
			name: 'Business CRM (10,000 customers)',
			type: 'businessCrmApi',
			data: {
				baseUrl: bigSandbox.url,
				apiKey: bigSandbox.apiKey,
				organizationId: bigSandbox.organizationId,
			},
		});
		const path = 'queue-return-all';
		await publishWorkflow(cluster, returnAllWorkflow(path, bigCredential));
		bigSandbox.clearLog();

		const sent = recordSenders(bigSandbox);
		const reply = await callWebhook(cluster, path, {}).finally(() => {
			bigSandbox.onRequest = undefined;
		});
		expect(reply.status).toBe(200);
		const ids = (reply.body as { ids: string[] }).ids;
		expect(ids).toHaveLength(10_000);
		expect(ids).toEqual(bigSandbox.customers.map((customer) => customer.id));
		expect(new Set(ids).size).toBe(10_000);
		const pages = bigSandbox.requests.filter((request) => request.path === CUSTOMERS);
		// Pages are read ten at a time, so they arrive in any order.
		expect(pages.map((request) => Number(request.query.offset)).sort((a, b) => a - b)).toEqual(
			// Pages of 100 that overlap by one customer.
			Array.from({ length: 101 }, (_, i) => i * 99),
		);
		expect(pages.every((request) => request.status === 200 && request.query.limit === '100')).toBe(
			true,
		);
		const worker = cluster.workerOf(reply.executionId ?? '')?.name;
		expect(worker).toMatch(/^worker-/);
		// The kernel names the same process as the worker's log: the check scenario 5 relies on.
		expect(sent.map((request) => request.from)).toEqual(pages.map(() => worker));
	});

	it('scenario 5: the Business CRM Trigger polls on the main only (every request to the API comes from its process), its executions run on the workers, and customers added in 4 batches are each emitted once', async () => {
		expect(
			cluster
				.workers()
				.map((worker) => worker.name)
				.sort(),
		).toEqual(['worker-1', 'worker-2']);
		const apiKey = await createApiKey(cluster, ['execution:read', 'execution:list']);
		const sent = recordSenders(sandbox);

		const before = sandbox.addCustomers(5);
		const batches: Array<typeof before> = [];
		let workflowId = '';
		let quietRequests = 0;
		let stillActive: boolean | undefined;
		const emitted = (runs: ExecutionWithData[]) =>
			runs.flatMap((run) => nodeOutput(run, 'New Customer').map((customer) => customer.id));
		const finished = async () => {
			const runs = await workflowExecutions(cluster, apiKey, workflowId);
			return runs.every((run) => !['new', 'running', 'waiting'].includes(run.status))
				? runs
				: undefined;
		};
		try {
			workflowId = await publishWorkflow(cluster, newCustomerWorkflow(credential, EVERY_5_SECONDS));
			// The activation's poll read the list and only recorded the 5 customers already there.
			expect(sent[0]).toEqual({ method: 'GET', path: CUSTOMERS, offset: '0', from: 'main' });
			expect(await workflowExecutions(cluster, apiKey, workflowId)).toEqual([]);

			// Each batch waits for the poll that finds it, so each poll finds exactly one batch;
			// the batch of 150 is read in two pages.
			for (const count of [3, 1, 150, 2]) {
				batches.push(sandbox.addCustomers(count));
				const wanted = batches.flat().map((customer) => customer.id);
				await waitUntil(`the batch of ${count} to be emitted`, 6 * POLL_MS, async () => {
					const runs = await finished();
					return runs !== undefined && emitted(runs).length >= wanted.length ? runs : undefined;
				}).catch(async (error: Error) => {
					const runs = await workflowExecutions(cluster, apiKey, workflowId);
					const polls = sandbox.requests.map(
						(request, i) => `${request.query.offset}→${request.status} from ${sent[i]?.from}`,
					);
					throw new Error(
						`${error.message}\nexecutions: ${JSON.stringify(runs.map((run) => [run.id, run.status]))}\nrequests: ${polls.join(', ')}\nmain: ${cluster.main.process.output().slice(-3000)}`,
					);
				});
			}
			// Two more polls, which would emit a customer a second time.
			const atQuietStart = sent.length;
			await sleep(2 * POLL_MS + 1_000);
			quietRequests = sent.length - atQuietStart;
		} finally {
			// Off again, so the scenarios after this one start no trigger executions.
			if (workflowId !== '') stillActive = await deactivateWorkflow(cluster, workflowId);
			sandbox.onRequest = undefined;
		}
		expect(stillActive).toBe(false);

		// Every request to the API came from the main's process: the workers polled nothing and,
		// running No Operation, sent nothing.
		expect(sent.filter((request) => request.from !== 'main')).toEqual([]);
		expect(sent.every((request) => request.method === 'GET' && request.path === CUSTOMERS)).toBe(
			true,
		);
		expect(quietRequests).toBeGreaterThanOrEqual(2);

		const runs = await waitUntil('the executions to end', 30_000, finished);
		expect(runs).toHaveLength(batches.length);
		runs.forEach((run, i) => {
			expect(run).toMatchObject({ status: 'success', mode: 'trigger' });
			expect(nodeOutput(run, 'New Customer')).toEqual(batches[i]);
			expect(nodeOutput(run, 'Received')).toEqual(batches[i]);
			// Enqueued by the main, run by a worker.
			expect(cluster.main.process.output()).toContain(`Enqueued execution ${run.id} (`);
			expect(cluster.workerOf(run.id)?.name).toMatch(/^worker-[12]$/);
		});
		const ids = emitted(runs);
		expect(ids).toEqual(batches.flat().map((customer) => customer.id));
		expect(new Set(ids).size).toBe(156);
		expect(ids.some((id) => before.some((customer) => customer.id === id))).toBe(false);
	});

	/** Posts 500 rows to the import workflow and SIGKILLs the worker running it mid-way. */
	async function killedImport(path: string, rows: Array<Record<string, string>>) {
		const accepted = await callWebhook(cluster, path, { rows });
		expect(accepted.status).toBe(200);
		expect(accepted.body).toEqual({ accepted: rows.length });
		const executionId = accepted.executionId ?? '';
		await waitUntil(`${KILL_AFTER} imported customers`, 120_000, () =>
			sandbox.customers.length >= KILL_AFTER ? true : undefined,
		);
		const worker = await waitUntil<QueueProcess>('the worker of the import', 10_000, () =>
			cluster.workerOf(executionId),
		);
		const survivors = cluster.workers().filter((other) => other !== worker);
		await cluster.killWorker(worker);
		const killedAt = Date.now();
		const createdBeforeKill = await settled(() => sandbox.customers.length);
		return { executionId, worker, survivors, killedAt, createdBeforeKill };
	}

	const importRows = (tag: string) =>
		Array.from({ length: IMPORT_ROWS }, (_, i) => ({
			firstName: `Row${i}`,
			lastName: `Import ${tag}`,
			email: `row-${i}.${tag}@import.test`,
		}));

	async function resend(path: string, rows: Array<Record<string, string>>): Promise<WebhookReply> {
		const reply = await callWebhook(cluster, path, { rows });
		expect(reply.status).toBe(200);
		const run = await finishedExecution(cluster, reply.executionId ?? '', 180_000);
		expect(run.status).toBe('success');
		return reply;
	}

	it(`scenario 4: a worker SIGKILLed in a ${IMPORT_ROWS}-row import: n8n fails the execution and does not re-run it, Retry re-runs nothing, and sending the rows again duplicates the ones created before the kill (no Skip Existing)`, async () => {
		const path = 'queue-import';
		await publishWorkflow(cluster, importWorkflow(path, credential, businessId));
		const rows = importRows('plain');
		const killed = await killedImport(path, rows);
		expect(killed.createdBeforeKill).toBeGreaterThanOrEqual(KILL_AFTER);
		expect(killed.createdBeforeKill).toBeLessThan(IMPORT_ROWS);

		// Bull finds the job's lock expired and, with maxStalledCount 0, fails it; the main
		// then records the execution as an error (not "crashed") with n8n's stall message.
		const failed = await finishedExecution(cluster, killed.executionId, 90_000);
		expect(failed).toMatchObject({ status: 'error', finished: false });
		expect(cluster.main.process.output()).toContain(
			`Problem with execution ${killed.executionId}: This execution failed to be processed too many times and will no longer retry.`,
		);
		// Not re-run by the queue: no other worker picked the job up, nobody was added since.
		for (const survivor of killed.survivors)
			expect(survivor.process.output()).not.toContain(
				`Worker started execution ${killed.executionId} (`,
			);
		expect(sandbox.customers).toHaveLength(killed.createdBeforeKill);

		// The user's Retry: n8n 2.8.4 replaced the failed execution's data with the stall error
		// alone (the webhook's rows are gone), so the retry runs no node and adds nobody.
		const retried = await rest<{ id: string; status: string; retryOf: string }>(
			cluster.url,
			cluster.session,
			'POST',
			`/executions/${killed.executionId}/retry`,
			{ loadWorkflow: false },
		);
		expect(retried).toMatchObject({ status: 'error', retryOf: killed.executionId });
		await sleep(2_000);
		expect(sandbox.customers).toHaveLength(killed.createdBeforeKill);

		// What remains to the user is sending the rows again: the rows created before the kill
		// are created a second time.
		const createdFirst = new Set(sandbox.customers.map((customer) => customer.email));
		await resend(path, rows);
		expect(sandbox.customers).toHaveLength(killed.createdBeforeKill + IMPORT_ROWS);
		const count = new Map<string, number>();
		for (const customer of sandbox.customers)
			count.set(customer.email ?? '', (count.get(customer.email ?? '') ?? 0) + 1);
		expect(new Set(count.keys())).toEqual(new Set(rows.map((row) => row.email)));
		const twice = [...count].filter(([, times]) => times === 2).map(([email]) => email);
		expect(new Set(twice)).toEqual(createdFirst);
		expect([...count.values()].every((times) => times <= 2)).toBe(true);
	});

	const skipExistingVariant = `scenario 4 with Skip Existing (email): after a killed worker, sending the ${IMPORT_ROWS} rows again ends with ${IMPORT_ROWS} customers, none twice`;
	it(skipExistingVariant, async () => {
		if (cluster.workers().length < 2) await cluster.startWorker();
		const path = 'queue-import-skip-existing';
		await publishWorkflow(
			cluster,
			importWorkflow(path, credential, businessId, { skipExisting: true, matchOn: 'email' }),
		);
		const rows = importRows('skip');
		const killed = await killedImport(path, rows);
		expect(killed.createdBeforeKill).toBeLessThan(IMPORT_ROWS);
		await finishedExecution(cluster, killed.executionId, 90_000);

		await resend(path, rows);
		expect(sandbox.customers).toHaveLength(IMPORT_ROWS);
		expect(new Set(sandbox.customers.map((customer) => customer.email))).toEqual(
			new Set(rows.map((row) => row.email)),
		);
	});

	it('scenario 3: the API key is in no Redis job payload, no log line, no execution record; workers decrypt the credential themselves', async () => {
		const key = sandbox.apiKey;
		expect(bigSandbox.apiKey).toBe(key);
		await recorder.stop();

		// Redis: what the scan saw is real traffic, and the jobs carry ids, not credentials.
		expect(recorder.snapshots).toBeGreaterThan(100);
		expect(recorder.jobs.size).toBeGreaterThan(10);
		const jobKeys = new Set<string>();
		for (const job of recorder.jobs.values()) {
			const data = JSON.parse(job.data ?? '{}') as Record<string, unknown>;
			expect(typeof data.executionId).toBe('string');
			for (const name of Object.keys(data)) jobKeys.add(name);
		}
		expect([...jobKeys].sort()).toEqual(
			expect.arrayContaining(['executionId', 'loadStaticData', 'workflowId']),
		);
		expect([...jobKeys].filter((name) => /credential|key|auth/i.test(name))).toEqual([]);
		expect(
			[...recorder.jobs.values()].some((job) =>
				(job.progress ?? '').includes('respond-to-webhook'),
			),
		).toBe(true);
		const redisHits = [...recorder.values].filter((value) => value.includes(key));
		expect(redisHits).toEqual([]);

		// Logs: every process's output and every file n8n wrote in its user folder.
		const logs = [
			...cluster.processes().map((entry) => ({ name: entry.name, text: entry.process.output() })),
			{ name: 'redis', text: cluster.redis.process.output() },
			{ name: 'postgres', text: cluster.postgres.process.output() },
			...cluster
				.processes()
				.flatMap((entry) => userFolderFiles(entry.folder))
				.map((file) => ({ name: file, text: fs.readFileSync(file, 'utf8') })),
		];
		expect(cluster.main.process.output()).toMatch(/Enqueued execution \d+/);
		for (const worker of cluster.processes().filter((entry) => entry.name !== 'main'))
			expect(worker.process.output()).toMatch(/Worker started execution \d+/);
		expect(logs.filter((log) => log.text.includes(key)).map((log) => log.name)).toEqual([]);

		// Postgres: the execution tables hold the runs (the customers scenario 1 created are in
		// there), the credential row is encrypted, and the key is nowhere in the database.
		const [executions, data] = (
			await cluster.postgres.query(
				"SELECT (SELECT count(*) FROM execution_entity) || ',' || (SELECT count(*) FROM execution_data)",
			)
		)
			.trim()
			.split(',')
			.map(Number);
		expect(executions).toBeGreaterThan(100);
		expect(data).toBe(executions);
		const stored = [
			await cluster.postgres.query('SELECT t::text FROM execution_entity t'),
			await cluster.postgres.query('SELECT t::text FROM execution_data t'),
			await cluster.postgres.query('SELECT t::text FROM execution_metadata t'),
		].join('\n');
		expect(burstEmails.length).toBe(100);
		expect(burstEmails.every((email) => stored.includes(email))).toBe(true);
		expect(stored.includes(key)).toBe(false);
		const credentials = await cluster.postgres.query(
			"SELECT data FROM credentials_entity WHERE type = 'businessCrmApi'",
		);
		expect(credentials.trim().split('\n')).toHaveLength(2);
		expect(credentials.includes(key)).toBe(false);
		const dump = await cluster.postgres.dump();
		expect(dump).toContain('businessCrmApi');
		expect(dump.includes(key)).toBe(false);
	});
});
