/**
 * The trigger's list reader (customerList.ts over api/listReader.ts). Its arithmetic: pages of
 * 100 that overlap by one customer cost max(1, ceil((n - 1) / 99)) requests for n customers, a
 * customer on the seam of two pages is read once, a total is trusted only when it is a whole
 * number of customers, a list empty at activation is read from its start, and a poll that found
 * nothing new writes nothing. And it always ends: an API that answers hasMore: true past its
 * total, without a total, with empty pages, or for another offset than the one asked for stops
 * the poll with an error after a bounded number of requests, and nothing is emitted or remembered.
 */
import type { Faults, Sandbox } from '../sandbox/server.cjs';
import { credentialsFor, failed, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { activatedTrigger, TriggerHarness } from '../helpers/poll-harness.cjs';
import { CUSTOMER_LIST, SKIP_OR_REPEAT } from '../../nodes/BusinessCrm/api/lists';
import { NOTHING_NEW, PAST_TOTAL } from '../../nodes/BusinessCrm/api/listReader';
import { SOURCE } from '../../nodes/BusinessCrmTrigger/customerList';
import { FINGERPRINT_LENGTH, STATE_KEY } from '../../nodes/BusinessCrmTrigger/seenCustomers';

const CUSTOMERS = CUSTOMER_LIST.url;

let sandbox: Sandbox;

useSandbox({ businesses: 2, customers: 0 }, {}, (started) => (sandbox = started));

const offsets = () => requestsTo(sandbox, CUSTOMERS).map((r) => r.query.offset);

async function activated(customers: number): Promise<TriggerHarness> {
	sandbox.seedCustomers(customers);
	return await activatedTrigger(credentialsFor(sandbox));
}

/** An activation on 250 customers, the API answering with `faults`. */
async function activatedWith(faults: Faults) {
	sandbox.seedCustomers(250);
	sandbox.setFaults(faults);
	const trigger = new TriggerHarness(credentialsFor(sandbox));
	return { trigger, outcome: await trigger.activate() };
}

const pastTotal = (total: number) => failed(SOURCE.what, `${PAST_TOTAL} ${total} ${SOURCE.noun}`);
const nothingNew = failed(SOURCE.what, `${NOTHING_NEW} ${SOURCE.noun}`);

describe("the trigger's list reader", () => {
	it('a full read of 298 customers costs 3 requests: no page is asked for past the last customer', async () => {
		// Pages start at 0, 99 and 198; the third ends on customer 297, the last. A page at 297
		// would only repeat it.
		await activated(298);
		expect(offsets()).toEqual(['0', '99', '198']);
	});

	it('customers appended across a page seam are each emitted once', async () => {
		const trigger = await activated(99);
		const added = sandbox.addCustomers(150).map((customer) => customer.id);
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		// The customer at offset 197 ends one page and begins the next.
		expect(outcome.items.map((item) => item.id)).toEqual(added);
	});

	it('a full read after a deletion remembers each customer once, though pages overlap', async () => {
		const trigger = await activated(250);
		sandbox.customers.splice(10, 1);
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(outcome.emits).toBe(0);
		// 249 customers, one fingerprint each: the seams' customers not twice.
		const state = trigger.nodeStaticData()[STATE_KEY] as { known: string };
		expect(state.known.length).toBe(249 * FINGERPRINT_LENGTH);
	});

	it('a negative total is ignored: the activation reads the list to its end', async () => {
		const { outcome } = await activatedWith({ totalOverride: -5 });
		expect(outcome.error).toBeUndefined();
		expect(offsets()).toEqual(['0', '99', '198']);
	});

	it('a list empty at activation: the next poll reads from offset 0 and emits the first customers', async () => {
		const trigger = await activated(0);
		const added = sandbox.addCustomers(3).map((customer) => customer.id);
		sandbox.clearLog();
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(outcome.items.map((item) => item.id)).toEqual(added);
		expect(offsets()).toEqual(['0']);
	});

	it('a poll that finds nothing new changes no static data, so n8n saves nothing', async () => {
		const trigger = await activated(250);
		// n8n saves a workflow's static data after a poll only when this flag is set.
		const staticData = trigger.workflow.staticData as { __dataChanged?: boolean };
		staticData.__dataChanged = false;
		const outcome = await trigger.poll();
		expect(outcome.emits).toBe(0);
		expect(staticData.__dataChanged).toBe(false);
		sandbox.addCustomers(1);
		await trigger.poll();
		expect(staticData.__dataChanged).toBe(true);
	});

	it('a credential pointed at another address starts over: it records that list and emits nothing', async () => {
		const trigger = await activated(5);
		sandbox.addCustomers(3);
		const elsewhere = sandbox.url.replace('127.0.0.1', 'localhost');
		const moved = trigger.restarted({ ...credentialsFor(sandbox), baseUrl: elsewhere });
		const outcome = await moved.activate('update');
		expect(outcome.error).toBeUndefined();
		// The first read of a list it has not seen only records it.
		expect(outcome.emits).toBe(0);
		expect(await moved.poll()).toMatchObject({ emits: 0 });
	});
});

describe("the trigger's list read always ends", () => {
	it.each<[string, Faults, unknown, unknown, number]>([
		[
			'hasMore: true past the total stops the activation, naming the total',
			{ hasMoreForever: true },
			pastTotal(250),
			undefined,
			// 3 pages hold the list; the reads ahead are bounded by the gate, not by the lie.
			19,
		],
		[
			'a total of 0 with hasMore: true is taken at its word: the read stops at once, naming it',
			{ hasMoreForever: true, totalOverride: 0 },
			pastTotal(0),
			undefined,
			1,
		],
		[
			'hasMore: true at exactly the offset of the total stops there, after the pages that hold the list',
			{ hasMoreForever: true, totalOverride: 198 },
			pastTotal(198),
			expect.stringMatching(/The read stopped after 3 requests/),
			3,
		],
		[
			'a fractional total bounds nothing: the read stops on pages without new customers instead',
			{ hasMoreForever: true, totalOverride: 2.5 },
			nothingNew,
			undefined,
			29,
		],
		[
			'hasMore: true without a total stops after 10 pages that bring no new customer',
			{ hasMoreForever: true, omitTotal: true },
			nothingNew,
			expect.stringMatching(/the last 10 brought nothing new and no total was given/),
			29,
		],
		[
			'empty pages with hasMore: true stop the read',
			{ emptyPagesWithHasMore: true, omitTotal: true },
			nothingNew,
			undefined,
			29,
		],
		[
			'a reply for another offset than the one asked for stops the read',
			{ offsetOverride: 0 },
			expect.stringMatching(
				/^Read customers failed: the API answered for offset 0 when offset \d+ was asked for$/,
			),
			`${SKIP_OR_REPEAT} ${SOURCE.noun}. This is an inconsistency in the API. ${SOURCE.afterwards}`,
			10,
		],
	])('%s', async (_title, faults, message, description, atMost) => {
		const { trigger, outcome } = await activatedWith(faults);
		const error = outcome.error as (Error & { description?: string }) | undefined;
		expect(error?.message).toEqual(message);
		if (description !== undefined) expect(error?.description).toEqual(description);
		expect(outcome.emits).toBe(0);
		expect(trigger.nodeStaticData()).toEqual({});
		expect(offsets().length).toBeLessThanOrEqual(atMost);
	});

	it('after a failed activation read, nothing was remembered: the next good poll only records', async () => {
		const { trigger } = await activatedWith({ hasMoreForever: true });
		sandbox.resetFaults();
		const next = await trigger.poll();
		expect(next.error).toBeUndefined();
		expect(next.emits).toBe(0);
	});
});
