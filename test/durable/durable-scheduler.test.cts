/**
 * The Business CRM Trigger on n8n's durable scheduler (n8n 2.41.1; `npm run test:durable`), with
 * the four variables n8n's docs recommend, and N8N_SCHEDULER_POLL_TIMEOUT at 10 s, which gives a
 * poll a budget of 5 s (10 s less max(20 %, 5 s), at most half). Three workflows poll three
 * sandboxes once a minute in one n8n:
 *
 * - A (300 customers): a customer added between publishing and the first scheduled poll, one
 *   added while n8n is stopped, one while the workflow is unpublished;
 * - B (6,000 customers, 1 s a page): a read of the whole list (61 pages, about 7 s with 10 at
 *   once) longer than a poll's budget, which the publish's own poll (5 minutes) need not read
 *   again at the first scheduled poll, and which after a change the tail read cannot follow goes
 *   on across polls (before, each poll failed at its deadline and the next started over);
 * - C (300 customers): a poll whose API stops answering, past n8n's timeout.
 *
 * Each new customer must come once, and no customer that was there at publishing ever. Polls at
 * most once a minute (n8n refuses sub-minute crons): about 7 minutes.
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	activateWorkflow,
	createApiKey,
	deactivateWorkflow,
	importWorkflow,
	setupOwner,
	startN8n,
	workflowExecutions,
	type ExecutionWithData,
	type RunningN8n,
	type Session,
	type UserFolder,
} from '../e2e/n8n.cjs';
import { exampleWorkflow, prepareN8n, sandboxCredential, withNode } from '../e2e/workflows.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const TRIGGER = 'New Customer';
const MINUTE = 60_000;
const TEST_TIMEOUT_MS = 15 * MINUTE;

/** The durable scheduler, as n8n's docs have it, and a poll timeout short enough to test. */
const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TIMEOUT: '10',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the next poll (second 0 of each minute) is at least 15 s away and the last 10 s past. */
async function betweenPolls(): Promise<void> {
	for (;;) {
		const into = Date.now() % MINUTE;
		if (into >= 10_000 && MINUTE - into >= 15_000) return;
		await sleep(250);
	}
}

/** Waits until the poll of the next minute has run (its second 0, plus time to finish). */
async function pastNextPoll(): Promise<void> {
	const next = Math.ceil((Date.now() + 1) / MINUTE) * MINUTE;
	await sleep(next - Date.now() + 12_000);
}

describe('Business CRM Trigger on n8n 2.41.1 durable scheduler', () => {
	const sandboxes: Record<'a' | 'b' | 'c', Sandbox> = {} as never;
	let folder: UserFolder;
	let n8n: RunningN8n | undefined;
	let session: Session;
	let apiKey: string;
	const workflows: Record<'a' | 'b' | 'c', string> = {} as never;
	const original: Record<'a' | 'b' | 'c', Set<string>> = {} as never;

	const executions = async (which: 'a' | 'b' | 'c'): Promise<ExecutionWithData[]> =>
		await workflowExecutions(n8n!.url, apiKey, workflows[which]);

	/** Every customer id the trigger emitted for a workflow, in order. */
	async function emitted(which: 'a' | 'b' | 'c'): Promise<string[]> {
		return (await executions(which))
			.filter((execution) => execution.status === 'success')
			.flatMap((execution) => {
				const run = execution.data?.resultData.runData[TRIGGER]?.[0];
				return (run?.data?.main?.[0] ?? []).map((item) => String(item.json.id));
			});
	}

	const listRequests = (which: 'a' | 'b' | 'c') =>
		sandboxes[which].requests.filter((request) => request.path === CUSTOMERS);

	const added = (which: 'a' | 'b' | 'c', count: number, at?: number) =>
		sandboxes[which].addCustomers(count, at === undefined ? {} : { at }).map((c) => c.id);

	/** What the n8n processes stopped so far printed. */
	let earlierOutput = '';
	// The owner's session outlives a restart (same user folder, same keys).
	const start = async () => {
		if (n8n) earlierOutput += n8n.output();
		n8n = await startN8n(folder, { env: DURABLE_SCHEDULER });
	};

	beforeAll(async () => {
		sandboxes.a = await startSandbox({ businesses: 2, customers: 300 });
		sandboxes.b = await startSandbox({ businesses: 2, customers: 6_000 });
		sandboxes.c = await startSandbox({ businesses: 2, customers: 300 });
		sandboxes.b.setFaults({ slow: { path: CUSTOMERS, delayMs: 1_000 } });
		const prepared = await prepareN8n(sandboxes.a, [
			{ ...sandboxCredential(sandboxes.b), id: 'BusinessCrmB', name: 'B' },
			{ ...sandboxCredential(sandboxes.c), id: 'BusinessCrmC', name: 'C' },
		]);
		folder = prepared.folder;
		const example = exampleWorkflow('welcome-new-customers.json');
		const trigger = example.nodes.find((node) => node.name === TRIGGER)!;
		const pollTimes = { item: [{ mode: 'custom', cronExpression: '0 * * * * *' }] };
		const credentials = {
			a: prepared.credential,
			b: prepared.others[0],
			c: prepared.others[1],
		};
		for (const which of ['a', 'b', 'c'] as const) {
			original[which] = new Set(sandboxes[which].customers.map((customer) => customer.id));
			workflows[which] = await importWorkflow(
				folder,
				withNode({ ...example, name: `Durable ${which}` }, TRIGGER, {
					parameters: { ...(trigger.parameters as object), pollTimes },
					credentials: {
						businessCrmApi: { id: credentials[which].id, name: credentials[which].name },
					},
				}),
			);
		}
		await start();
		session = await setupOwner(n8n!.url);
		expect(n8n!.output()).toContain('Scheduler started');
		apiKey = await createApiKey(n8n!.url, session, 'durable e2e');
	}, TEST_TIMEOUT_MS);

	afterAll(async () => {
		await n8n?.stop();
		folder?.remove();
		for (const sandbox of Object.values(sandboxes)) await sandbox?.close();
	});

	it(
		'each customer once, none lost: after publishing, a long read, a poll past the timeout, a restart, unpublish and publish',
		async () => {
			try {
				await scenario();
			} catch (error) {
				// What n8n logged (polls, backoffs, publication) and what B's polls asked for say why
				// a customer did not come.
				const logged = (earlierOutput + (n8n?.output() ?? ''))
					.split('\n')
					.filter((line) => /[Pp]oll|backing off|abandon|publish|Scheduler/.test(line));
				const pages = listRequests('b').map((r) => `${r.query.offset}:${r.status}`);
				(error as Error).message +=
					`\n--- n8n's lines about polls\n${logged.slice(-80).join('\n')}` +
					`\n--- B's list requests since its list changed (offset:status)\n${pages.join(' ')}`;
				throw error;
			}
		},
		TEST_TIMEOUT_MS,
	);

	async function scenario(): Promise<void> {
		const expected: Record<'a' | 'b' | 'c', string[]> = { a: [], b: [], c: [] };
		await betweenPolls();
		for (const which of ['a', 'b', 'c'] as const) {
			await activateWorkflow(n8n!.url, session, workflows[which]);
		}
		// The publish's own poll read B's whole list: 61 pages.
		expect(listRequests('b').length).toBeGreaterThanOrEqual(61);
		// Between publishing and the first scheduled poll, which n8n 2.41 gives no saved state.
		expected.a.push(...added('a', 1));
		sandboxes.b.clearLog();
		await pastNextPoll();
		expect(await emitted('a')).toEqual(expected.a);
		// B's first scheduled poll did not read the list again: the tail and one sweep page.
		expect(listRequests('b').length).toBeLessThanOrEqual(2);

		// B: the last known customer deleted, so the next poll must read the whole list, which
		// takes more than one poll's budget. C: the API stops answering the next list read.
		await betweenPolls();
		sandboxes.b.customers.pop();
		expected.b.push(...added('b', 1, 3_000), ...added('b', 2));
		expected.c.push(...added('c', 1));
		sandboxes.c.setFaults({ slow: { path: CUSTOMERS, delayMs: 30_000, count: 1 } });
		sandboxes.b.clearLog();
		await pastNextPoll();
		// B's poll read part of the list and kept it.
		expect(listRequests('b').length).toBeLessThan(61);
		expect(await emitted('b')).toEqual([]);
		// C's poll ended with an error within its budget, before n8n's timeout.
		expect((await executions('c')).map((execution) => execution.status)).toEqual(['error']);

		// A restart while B's read is under way, with a customer added while n8n is stopped.
		await betweenPolls();
		await n8n!.stop();
		expected.a.push(...added('a', 1));
		await start();
		await pastNextPoll();
		expect(await emitted('a')).toEqual(expected.a);
		expect(await emitted('c')).toEqual(expected.c);

		// Unpublish, a customer added, publish: that customer once.
		await betweenPolls();
		await deactivateWorkflow(n8n!.url, session, workflows.a);
		expected.a.push(...added('a', 1));
		await activateWorkflow(n8n!.url, session, workflows.a);
		await pastNextPoll();
		// B reads on, about a third of the list a poll, from where it was before the restart.
		for (let polls = 4; polls <= 7 && (await emitted('b')).length < expected.b.length; polls++) {
			await pastNextPoll();
		}
		// One more poll, which would show a customer emitted twice.
		await pastNextPoll();

		for (const which of ['a', 'b', 'c'] as const) {
			const ids = await emitted(which);
			expect({ which, ids: [...ids].sort() }).toEqual({
				which,
				ids: [...expected[which]].sort(),
			});
			expect(ids.filter((id) => original[which].has(id))).toEqual([]);
		}
	}
});
