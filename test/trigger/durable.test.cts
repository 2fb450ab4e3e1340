/**
 * The trigger under a poll budget too short to read the whole list (n8n's durable scheduler
 * gives a tick 36 s), in n8n's legacy scheduler and under durable cursors (each poll a copy of
 * the committed static data; nothing committed by an activation that emitted nothing, a failed
 * or an abandoned poll). Time is the package's clock, moved on by one second per page the
 * sandbox answers, so how far a poll gets does not depend on this machine's speed.
 */
import type { Sandbox } from '../sandbox/server.cjs';
import { credentialsFor, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { clock, usePagedClock } from '../helpers/clock.cjs';
import { loadTriggerType, TriggerHarness, type PollOutcome } from '../helpers/poll-harness.cjs';
import { CUSTOMER_LIST } from '../../nodes/BusinessCrm/api/lists';
import { FINGERPRINT_LENGTH, STATE_KEY } from '../../nodes/BusinessCrmTrigger/seenCustomers';
import {
	deadlineWords,
	POLL_DEADLINE_MS,
	pollDeadlineMs,
	READING_SHARE,
} from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import type { IPollFunctions } from 'n8n-workflow';

const CUSTOMERS = CUSTOMER_LIST.url;
/** n8n 2.41's budget for a scheduler tick at its default N8N_SCHEDULER_POLL_TIMEOUT. */
const TICK_BUDGET_MS = 36_000;
/** What one page of the list costs on the clock. */
const PAGE_MS = 1_000;
/** Pages of 100 overlapping by one: a read of N customers. */
const pagesOf = (n: number) => Math.ceil((n - 1) / 99);

let sandbox: Sandbox;
useSandbox({ businesses: 2, customers: 0 }, {}, (started) => (sandbox = started));

usePagedClock(() => sandbox, CUSTOMERS, PAGE_MS);

const ids = (outcome: PollOutcome) => outcome.items.map((customer) => String(customer.id));

type State = { count: number; known: string; pass?: { first: boolean } };
const stateOf = (data: Record<string, unknown>) => data[STATE_KEY] as State | undefined;

/** A trigger on the sandbox, in the legacy scheduler or under durable cursors. */
function trigger(durable: boolean, budgetMs?: number): TriggerHarness {
	const harness = new TriggerHarness(credentialsFor(sandbox));
	harness.durableCursors = durable;
	harness.pollBudgetMs = budgetMs;
	return harness;
}

/** What n8n keeps of the trigger's state: the committed copy under durable cursors. */
const kept = (harness: TriggerHarness) =>
	stateOf(harness.durableCursors ? harness.committedStaticData() : harness.nodeStaticData());

/** Polls until no read is in progress (at most `max` polls): every id emitted, and the polls. */
async function pollUntilRead(
	harness: TriggerHarness,
	max: number,
): Promise<{ emitted: string[]; polls: number }> {
	const emitted: string[] = [];
	for (let polls = 1; polls <= max; polls++) {
		const outcome = await harness.poll();
		expect(outcome.error).toBeUndefined();
		emitted.push(...ids(outcome));
		if (kept(harness)?.pass === undefined) return { emitted, polls };
	}
	throw new Error(`the read was still going on after ${max} polls`);
}

const MODES: Array<[string, boolean]> = [
	['legacy scheduler', false],
	['durable cursors', true],
];

describe.each(MODES)('%s: a read longer than one poll', (_mode, durable) => {
	it('a first read too long for the activation goes on at the next polls, each page read once, and emits nothing', async () => {
		sandbox.seedCustomers(3_000);
		const harness = trigger(durable, TICK_BUDGET_MS);
		const activation = await harness.activate();
		expect(activation.error).toBeUndefined();
		expect(activation.emits).toBe(0);
		// It stopped about READING_SHARE into its budget, with a page or more read.
		const stoppedAt = requestsTo(sandbox, CUSTOMERS).length;
		expect(stoppedAt).toBeGreaterThan(1);
		expect(stoppedAt).toBeLessThan(pagesOf(3_000));

		const { emitted, polls } = await pollUntilRead(harness, 5);
		expect(emitted).toEqual([]);
		expect(polls).toBeGreaterThanOrEqual(1);
		// Offset 0 is read once: no poll started over.
		const offsets = requestsTo(sandbox, CUSTOMERS).map((request) => request.query.offset ?? '0');
		expect(offsets.filter((offset) => offset === '0')).toHaveLength(1);
		// Every page once: those on their way when a poll stopped were read, not dropped.
		expect(offsets).toHaveLength(pagesOf(3_000));
		expect(new Set(offsets).size).toBe(offsets.length);
		expect(kept(harness)?.known.length).toBe(3_000 * FINGERPRINT_LENGTH);

		const [added] = sandbox.addCustomers(1);
		expect(ids(await harness.poll())).toEqual([added.id]);
		expect(ids(await harness.poll())).toEqual([]);
	});

	it('a poll stops reading at READING_SHARE of its budget', async () => {
		sandbox.seedCustomers(3_000);
		const harness = trigger(durable, TICK_BUDGET_MS);
		const started = clock.now();
		expect((await harness.activate()).error).toBeUndefined();
		const asked = requestsTo(sandbox, CUSTOMERS).length;
		// Pages are asked for until the share has passed, plus those already on their way (10 at once).
		expect(asked).toBeGreaterThanOrEqual((TICK_BUDGET_MS * READING_SHARE) / PAGE_MS);
		expect(asked).toBeLessThanOrEqual((TICK_BUDGET_MS * READING_SHARE) / PAGE_MS + 10);
		expect(clock.now() - started).toBe(asked * PAGE_MS);
	});

	it('customers deleted before where a first read stopped do not make it start over', async () => {
		sandbox.seedCustomers(3_000);
		const harness = trigger(durable, TICK_BUDGET_MS);
		expect((await harness.activate()).error).toBeUndefined();
		const original = new Set(sandbox.customers.map((customer) => customer.id));
		sandbox.customers.splice(10, 5);
		sandbox.clearLog();
		const { emitted } = await pollUntilRead(harness, 5);
		expect(emitted).toEqual([]);
		const offsets = requestsTo(sandbox, CUSTOMERS).map((request) => request.query.offset ?? '0');
		expect(offsets).not.toContain('0');
		// Those deleted were read before they went: forgotten only by a later whole read.
		expect(kept(harness)?.known.length).toBe(3_000 * FINGERPRINT_LENGTH);
		// No customer that was there at activation is ever emitted: a whole sweep later, nothing.
		const later: string[] = [];
		for (let poll = 0; poll < pagesOf(3_000) + 1; poll++) later.push(...ids(await harness.poll()));
		expect(later.filter((id) => original.has(id))).toEqual([]);
	});

	it('a later whole read (the last known customer deleted) goes on across polls, emitting each new customer once', async () => {
		sandbox.seedCustomers(3_000);
		// The activation has n8n's 5 minutes and reads the list at once; the ticks have 36 s.
		const harness = trigger(durable);
		expect((await harness.activate()).error).toBeUndefined();
		expect(kept(harness)?.pass).toBeUndefined();
		harness.pollBudgetMs = TICK_BUDGET_MS;

		sandbox.customers.pop();
		const inserted = sandbox.addCustomers(1, { at: 500 }).map((customer) => customer.id);
		const appended = sandbox.addCustomers(3).map((customer) => customer.id);
		const { emitted, polls } = await pollUntilRead(harness, 5);
		expect(polls).toBeGreaterThan(1);
		expect([...emitted].sort()).toEqual([...inserted, ...appended].sort());
		// The deleted customer is forgotten once the read reached the end.
		expect(kept(harness)?.known.length).toBe(3_003 * FINGERPRINT_LENGTH);
		expect(ids(await harness.poll())).toEqual([]);
	});

	it('a list that moves before where a first read stopped, every poll, fails it at its third start over', async () => {
		sandbox.seedCustomers(3_000);
		const harness = trigger(durable, TICK_BUDGET_MS);
		expect((await harness.activate()).error).toBeUndefined();
		const errors: string[] = [];
		for (let poll = 0; poll < 3; poll++) {
			// One inserted at the front: the customer the read stopped at moved forward.
			sandbox.addCustomers(1, { at: 0 });
			const outcome = await harness.poll();
			expect(outcome.emits).toBe(0);
			if (outcome.error) errors.push(outcome.error.message);
		}
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatch(/the list changed while it was read, 3 times in a row/);
	});
});

describe('durable cursors: what n8n does not commit', () => {
	it('customers added between publishing and the first scheduled poll are emitted, and that poll does not read the list again', async () => {
		sandbox.seedCustomers(500);
		const harness = trigger(true);
		expect((await harness.activate()).emits).toBe(0);
		// n8n 2.41 commits nothing of an activation that emitted nothing.
		expect(kept(harness)).toBeUndefined();
		const added = sandbox.addCustomers(2).map((customer) => customer.id);
		sandbox.clearLog();
		expect(ids(await harness.poll())).toEqual(added);
		// The tail and one page of the sweep.
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2);
		expect(kept(harness)?.known.length).toBe(502 * FINGERPRINT_LENGTH);
		expect(ids(await harness.poll())).toEqual([]);
	});

	// A fresh copy of the node's modules for each restart, loaded with this file (see loadTriggerType).
	const restartedProcesses = [loadTriggerType(true), loadTriggerType(true)];

	it.each([
		['nothing new at the first scheduled poll', 0],
		['a customer at the first scheduled poll', 1],
	])(
		'a restart after the first scheduled poll (%s) loses no customer added then',
		async (_, atFirstPoll) => {
			sandbox.seedCustomers(500);
			const harness = trigger(true);
			await harness.activate();
			const first = sandbox.addCustomers(atFirstPoll).map((customer) => customer.id);
			expect(ids(await harness.poll())).toEqual(first);
			// What the process kept is gone; only what n8n committed remains.
			const restarted = harness.restarted(undefined, undefined, {
				freshNode: restartedProcesses[atFirstPoll],
			});
			expect(stateOf(restarted.committedStaticData())?.known.length).toBe(
				(500 + atFirstPoll) * FINGERPRINT_LENGTH,
			);
			expect((await restarted.activate('init')).emits).toBe(0);
			const added = sandbox.addCustomers(1).map((customer) => customer.id);
			expect(ids(await restarted.poll())).toEqual(added);
		},
	);

	it('what an abandoned poll emitted comes again at the next poll, once', async () => {
		sandbox.seedCustomers(500);
		const harness = trigger(true);
		await harness.activate();
		const first = sandbox.addCustomers(1).map((customer) => customer.id);
		// The first scheduled poll, abandoned: nothing committed yet at all.
		harness.abandonNext = true;
		expect(ids(await harness.poll())).toEqual([]);
		expect(harness.dropped.map((customer) => customer.id)).toEqual(first);
		expect(ids(await harness.poll())).toEqual(first);

		const second = sandbox.addCustomers(1).map((customer) => customer.id);
		harness.abandonNext = true;
		await harness.poll();
		expect(ids(await harness.poll())).toEqual(second);
		expect(ids(await harness.poll())).toEqual([]);
	});

	it('a poll that fails commits nothing, and the next finds the customer', async () => {
		sandbox.seedCustomers(500);
		const harness = trigger(true);
		await harness.activate();
		await harness.poll();
		const added = sandbox.addCustomers(1).map((customer) => customer.id);
		sandbox.setFaults({ serverError: { path: CUSTOMERS, count: 100 } });
		expect((await harness.poll()).error).toBeDefined();
		sandbox.resetFaults();
		expect(ids(await harness.poll())).toEqual(added);
	});
});

describe("the poll's deadline", () => {
	const withBudget = (budget: unknown) =>
		({ getPollBudgetMs: () => budget }) as unknown as IPollFunctions;

	it.each<[string, unknown, number]>([
		['a tick of the durable scheduler', 36_000, 36_000],
		['a budget longer than 10 minutes', 3_600_000, POLL_DEADLINE_MS],
		['a budget of 0', 0, POLL_DEADLINE_MS],
		['a negative budget', -1, POLL_DEADLINE_MS],
		['no number', '36000', POLL_DEADLINE_MS],
		['an endless budget', Infinity, POLL_DEADLINE_MS],
	])('%s: %p gives %i ms', (_, budget, expected) => {
		expect(pollDeadlineMs(withBudget(budget))).toBe(expected);
	});

	it('n8n before 2.38 (no getPollBudgetMs): 10 minutes', () => {
		expect(pollDeadlineMs({} as IPollFunctions)).toBe(POLL_DEADLINE_MS);
	});

	it.each([
		[36_000, '36 s'],
		[90_000, '90 s'],
		[600_000, '10 minutes'],
		[60_000, '1 minute'],
		[120_000, '2 minutes'],
		[300_000, '5 minutes'],
		[0, '0 s'],
	])('%i ms is said as "%s"', (ms, words) => {
		expect(deadlineWords(ms)).toBe(words);
	});
});

describe('a saved read in progress that cannot be read back', () => {
	it.each<[string, unknown]>([
		['without the fingerprints it has seen', { first: true, restarts: 0 }],
		['null', null],
	])(
		'(%s) is not taken for a whole read: the list is recorded again, nothing emitted',
		async (_, pass) => {
			sandbox.seedCustomers(300);
			const harness = trigger(false);
			expect((await harness.activate()).error).toBeUndefined();
			const data = harness.workflow.getStaticData(
				'node',
				harness.workflow.getNode('Business CRM Trigger')!,
			);
			const state = data[STATE_KEY] as Record<string, unknown>;
			// As if a first read had stopped at customer 10, and its progress were damaged.
			data[STATE_KEY] = { ...state, count: 10, lastId: sandbox.customers[9].id, known: '', pass };
			expect(ids(await harness.poll())).toEqual([]);
			expect(kept(harness)?.known.length).toBe(300 * FINGERPRINT_LENGTH);
		},
	);
});
