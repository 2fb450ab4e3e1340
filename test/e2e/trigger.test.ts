/**
 * The Business CRM Trigger in a real n8n: the example workflow (trigger → Welcome Message)
 * activated through n8n's REST API, polling the sandbox as often as the n8n under test allows.
 * n8n 2.8.4 refuses only a `*` in the cron's seconds field, so listed seconds poll every 10 s;
 * n8n 2.40.7 refuses any cron that fires more than once a minute (n8n-workflow isSubMinuteCron),
 * so there it polls every minute. Executions are read back through n8n's public API, which
 * returns their data as plain JSON.
 */
import { startSandbox, type Sandbox, type SandboxCustomer } from '../sandbox/server';
import {
	activateWorkflow,
	importWorkflow,
	rest,
	setupOwner,
	startN8n,
	type RunningN8n,
	type Session,
	type UserFolder,
	type WorkflowRun,
} from './n8n';
import { exampleWorkflow, prepareN8n, withNode } from './workflows';

const CUSTOMERS = '/api/public/v1/customers';
const TRIGGER = 'New Customer';
/** The n8n versions measured to accept a poll every 10 s; any other polls every minute. */
const SUB_MINUTE_POLLS = ['2.8.4'];
/** Covers the slowest case: a poll a minute, two batches, each followed by two polls. */
const TEST_TIMEOUT_MS = 600_000;

interface Execution {
	id: string;
	status: string;
	mode: string;
	data?: WorkflowRun['data'];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Business CRM Trigger in a real n8n', () => {
	let sandbox: Sandbox;
	let folder: UserFolder;
	let n8n: RunningN8n | undefined;
	let session: Session;
	let apiKey: string;
	let workflowId: string;
	let pollEveryMs: number;
	/** Long enough for two more polls, which would show a customer emitted twice. */
	let twoPollsMs: number;

	/** Every execution of the workflow, oldest first, once none is still running. */
	async function executions(): Promise<Execution[]> {
		const response = await fetch(
			`${n8n!.url}/api/v1/executions?workflowId=${workflowId}&includeData=true&limit=250`,
			{ headers: { 'X-N8N-API-KEY': apiKey } },
		);
		if (!response.ok) throw new Error(`GET /api/v1/executions: ${response.status}`);
		const { data } = (await response.json()) as { data: Execution[] };
		return data.sort((a, b) => Number(a.id) - Number(b.id));
	}

	async function waitForExecutions(count: number): Promise<Execution[]> {
		const deadline = Date.now() + pollEveryMs + 50_000;
		for (;;) {
			const seen = await executions();
			const done = seen.every((e) => !['new', 'running', 'waiting'].includes(e.status));
			if (seen.length >= count && done) return seen;
			if (Date.now() > deadline) {
				throw new Error(
					`expected ${count} executions, saw ${seen.length}\n${n8n!.output().slice(-3000)}`,
				);
			}
			await sleep(1000);
		}
	}

	/** The json a node put out in an execution. */
	function output(execution: Execution, node: string): Array<Record<string, unknown>> {
		const run = execution.data?.resultData.runData[node]?.[0];
		return (run?.data?.main?.[0] ?? []).map((item) => item.json);
	}

	/**
	 * Requests for the customer list since the last call, as [offset, status], by offset: pages
	 * read at once arrive in any order; the tries of one page keep their order.
	 */
	function takeListRequests(): Array<[number, number]> {
		const seen = sandbox.requests
			.filter((r) => r.path === CUSTOMERS)
			.map((r) => [Number(r.query.offset), r.status] as [number, number])
			.sort((a, b) => a[0] - b[0]);
		sandbox.clearLog();
		return seen;
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3, customers: 120 });
		const prepared = await prepareN8n(sandbox);
		folder = prepared.folder;
		const fast = SUB_MINUTE_POLLS.includes(prepared.version);
		pollEveryMs = fast ? 10_000 : 60_000;
		twoPollsMs = 2 * pollEveryMs + 1_000;
		const pollTimes = {
			item: [
				{ mode: 'custom', cronExpression: fast ? '0,10,20,30,40,50 * * * * *' : '0 * * * * *' },
			],
		};
		const workflow = exampleWorkflow('welcome-new-customers.json');
		const trigger = workflow.nodes.find((node) => node.name === TRIGGER)!;
		workflowId = await importWorkflow(
			folder,
			withNode(workflow, TRIGGER, {
				parameters: { ...(trigger.parameters as object), pollTimes },
			}),
		);
		n8n = await startN8n(folder);
		session = await setupOwner(n8n.url);
		const created = await rest<{ rawApiKey: string }>(n8n.url, session, 'POST', '/api-keys', {
			label: 'trigger e2e',
			scopes: ['execution:read', 'execution:list'],
			expiresAt: null,
		});
		apiKey = created.rawApiKey;
	});

	afterAll(async () => {
		await n8n?.stop();
		folder?.remove();
		await sandbox?.close();
	});

	it(
		'activation records the customers already there and starts no execution',
		async () => {
			sandbox.clearLog();
			await activateWorkflow(n8n!.url, session, workflowId);
			await sleep(twoPollsMs);
			expect(await executions()).toEqual([]);
			// The activation's poll read the whole list (120 customers, two pages overlapping by
			// one); each poll since then only the tail from the last known customer on.
			const requests = takeListRequests();
			expect(requests.slice(0, 2)).toEqual([
				[0, 200],
				[99, 200],
			]);
			expect(requests.length).toBeGreaterThanOrEqual(4);
			expect(requests.slice(2).every(([offset, status]) => offset === 119 && status === 200)).toBe(
				true,
			);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		'starts one execution per poll that found customers, with exactly those customers, each once',
		async () => {
			const added: SandboxCustomer[] = [];
			for (const count of [3, 2]) {
				const batch = sandbox.addCustomers(count);
				added.push(...batch);
				const seen = await waitForExecutions(added.length === 3 ? 1 : 2);
				const last = seen[seen.length - 1];
				expect(last.status).toBe('success');
				expect(last.mode).toBe('trigger');
				expect(output(last, TRIGGER)).toEqual(batch);
				expect(output(last, 'Welcome Message')).toEqual(
					batch.map((customer) => ({
						customerId: customer.id,
						to: customer.email ?? '',
						message: `Welcome, ${customer.firstName} ${customer.lastName}! Thank you for choosing us.`,
					})),
				);
			}
			await sleep(twoPollsMs);
			const all = await executions();
			expect(all).toHaveLength(2);
			expect(all.flatMap((e) => output(e, TRIGGER).map((c) => c.id))).toEqual(
				added.map((c) => c.id),
			);
			expect(takeListRequests().every(([offset, status]) => offset >= 119 && status === 200)).toBe(
				true,
			);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		'after a restart, emits the customers added while n8n was stopped, once',
		async () => {
			await n8n!.stop();
			n8n = undefined;
			const whileStopped = sandbox.addCustomers(4);
			sandbox.clearLog();
			n8n = await startN8n(folder);

			const seen = await waitForExecutions(3);
			expect(output(seen[2], TRIGGER)).toEqual(whileStopped);
			await sleep(twoPollsMs);
			expect(await executions()).toHaveLength(3);
			// The state was saved: after the restart no full read, only the tail from offset 124.
			const requests = takeListRequests();
			expect(requests[0]).toEqual([124, 200]);
			expect(requests.slice(1).every(([offset, status]) => offset === 128 && status === 200)).toBe(
				true,
			);
		},
		TEST_TIMEOUT_MS,
	);
});
