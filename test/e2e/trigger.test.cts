/**
 * The Business CRM Trigger in a real n8n: the example workflow (trigger → Welcome Message)
 * activated through n8n's REST API, polling the sandbox as often as the n8n under test allows
 * (versions.cts `subMinutePolls`). Where n8n accepts a poll every 10 s (1.x, the pinned 2.8.4) the
 * trigger's guarantees are proven in full; where it polls at most once a minute (2.33+) each
 * guarantee would cost minutes, so there only activation and one emitting poll are run.
 * Executions are read back through n8n's public API, which returns their data as plain JSON.
 */
import { startSandbox, type Sandbox, type SandboxCustomer } from '../sandbox/server.cjs';
import {
	activateWorkflow,
	createApiKey,
	deactivateWorkflow,
	e2eVersion,
	importWorkflow,
	saveEdit,
	setupOwner,
	startN8n,
	workflowExecutions,
	type ExecutionWithData,
	type RunningN8n,
	type Session,
	type UserFolder,
} from './n8n.cjs';
import { behaviourOf } from './versions.cjs';
import { exampleWorkflow, prepareN8n, withNode } from './workflows.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const TRIGGER = 'New Customer';
/** Polls every 10 s where n8n allows it, else every minute. */
const FAST_POLLS = behaviourOf(e2eVersion()).subMinutePolls;
/** The full guarantees where polls are cheap; activation and one emitting poll elsewhere. */
const itWithFastPolls = FAST_POLLS ? it : it.skip;
const itWithMinutePolls = FAST_POLLS ? it.skip : it;
/** Covers the slowest case: a poll a minute, two batches, each followed by two polls. */
const TEST_TIMEOUT_MS = 600_000;

type Execution = ExecutionWithData;

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
	const executions = async (): Promise<Execution[]> =>
		await workflowExecutions(n8n!.url, apiKey, workflowId);

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

	/**
	 * Waits until the next scheduled poll is at least 6 s away (polls fall on whole multiples of
	 * `pollEveryMs`, see the cron expressions below) and the last one 2 s past.
	 */
	async function betweenPolls(): Promise<void> {
		for (;;) {
			const intoPeriod = Date.now() % pollEveryMs;
			if (intoPeriod >= 2_000 && pollEveryMs - intoPeriod >= 6_000) return;
			await sleep(250);
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
		pollEveryMs = FAST_POLLS ? 10_000 : 60_000;
		twoPollsMs = 2 * pollEveryMs + 1_000;
		const pollTimes = {
			item: [
				{
					mode: 'custom',
					cronExpression: FAST_POLLS ? '0,10,20,30,40,50 * * * * *' : '0 * * * * *',
				},
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
		apiKey = await createApiKey(n8n.url, session, 'trigger e2e');
	});

	afterAll(async () => {
		await n8n?.stop();
		folder?.remove();
		await sandbox?.close();
	});

	itWithMinutePolls(
		'activation starts no execution, and the next poll emits the customers added since',
		async () => {
			sandbox.clearLog();
			await activateWorkflow(n8n!.url, session, workflowId);
			// The activation's poll has read the list before new customers arrive.
			while (!sandbox.requests.some((r) => r.path === CUSTOMERS)) await sleep(250);
			await sleep(3_000);
			expect(await executions()).toEqual([]);
			const batch = sandbox.addCustomers(2);
			const seen = await waitForExecutions(1);
			expect(seen).toHaveLength(1);
			expect(seen[0].status).toBe('success');
			expect(seen[0].mode).toBe('trigger');
			expect(output(seen[0], TRIGGER)).toEqual(batch);
		},
		TEST_TIMEOUT_MS,
	);

	itWithFastPolls(
		'activation records the customers already there and starts no execution',
		async () => {
			sandbox.clearLog();
			await activateWorkflow(n8n!.url, session, workflowId);
			await sleep(twoPollsMs);
			expect(await executions()).toEqual([]);
			// The activation's poll read the whole list (120 customers, two pages overlapping by
			// one: offsets 0 and 99); each poll since then the tail from the last known customer on
			// (offset 119) and one page of the sweep through the known list (0 or 99).
			const requests = takeListRequests();
			const tails = requests.filter(([offset]) => offset === 119);
			expect(tails.length).toBeGreaterThanOrEqual(2);
			expect(
				requests.every(([offset, status]) => [0, 99, 119].includes(offset) && status === 200),
			).toBe(true);
			expect(requests.length - 2).toBeLessThanOrEqual(2 * tails.length);
		},
		TEST_TIMEOUT_MS,
	);

	itWithFastPolls(
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
			// Tails from the last known customer on, and one sweep page per poll (0 or 99).
			expect(
				takeListRequests().every(
					([offset, status]) => (offset >= 119 || offset % 99 === 0) && status === 200,
				),
			).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);

	itWithFastPolls(
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
			// The state was saved: after the restart no full read, only the tail from offset 124
			// (then 128) and one page of the sweep per poll.
			const requests = takeListRequests();
			const tails = requests.filter(([offset]) => offset >= 124);
			expect(tails[0]).toEqual([124, 200]);
			expect(tails.slice(1).every(([offset, status]) => offset === 128 && status === 200)).toBe(
				true,
			);
			const swept = requests.filter(([offset]) => offset < 124);
			expect(swept.every(([offset, status]) => offset % 99 === 0 && status === 200)).toBe(true);
			expect(swept.length).toBeLessThanOrEqual(tails.length);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		'customers added while the workflow was unpublished, and around an edit, are emitted by the first poll after it is published again, once',
		async () => {
			// Whatever ran before, the workflow is published and its trigger has its state.
			// Unpublished between scheduled polls: a poll already under way when the workflow is
			// unpublished runs to its end (n8n stops the schedule, not a running poll), and would
			// emit the first customers itself.
			await betweenPolls();
			const before = (await executions()).length;
			await deactivateWorkflow(n8n!.url, session, workflowId);
			const whileOff = sandbox.addCustomers(2);
			await saveEdit(n8n!.url, session, workflowId, (nodes) =>
				nodes.map((node) =>
					node.name === TRIGGER ? node : { ...node, notes: 'Edited while unpublished' },
				),
			);
			const afterEdit = sandbox.addCustomers(1);
			sandbox.clearLog();
			await activateWorkflow(n8n!.url, session, workflowId);

			const seen = await waitForExecutions(before + 1);
			// Not a first activation: the state was kept, so no whole read of the list (two pages
			// below the last known customer in one poll), only the tail and one sweep page a poll.
			const requests = takeListRequests();
			const tails = requests.filter(([offset]) => offset >= 119);
			expect(tails.length).toBeGreaterThanOrEqual(1);
			expect(requests.length - tails.length).toBeLessThanOrEqual(tails.length);
			// n8n polls once on activation; one more poll shows nothing is emitted twice.
			await sleep(pollEveryMs + 1_000);
			const all = await executions();
			const emitted = all.slice(before).flatMap((e) => output(e, TRIGGER));
			expect({ executions: all.length - before, emitted }).toEqual({
				executions: 1,
				emitted: [...whileOff, ...afterEdit],
			});
			expect(output(seen[before], TRIGGER)).toEqual([...whileOff, ...afterEdit]);
		},
		TEST_TIMEOUT_MS,
	);
});
