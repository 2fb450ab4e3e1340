/**
 * The trigger's list reader's arithmetic: pages of 100 that overlap by one customer cost
 * max(1, ceil((n - 1) / 99)) requests for n customers, a customer on the seam of two pages is
 * read once, a total is trusted only when it is a whole number of customers, a list empty at
 * activation is read from its start, and a poll that found nothing new writes nothing.
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { credentialsFor, requestsTo } from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';
import { FINGERPRINT_LENGTH, STATE_KEY } from '../../nodes/BusinessCrmTrigger/seenCustomers';

const CUSTOMERS = '/api/public/v1/customers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ businesses: 2, customers: 0 });
});

afterAll(async () => await sandbox.close());

beforeEach(() => {
	sandbox.resetFaults();
	sandbox.clearLog();
});

async function activated(customers: number): Promise<TriggerHarness> {
	sandbox.seedCustomers(customers);
	const trigger = new TriggerHarness(credentialsFor(sandbox));
	const outcome = await trigger.activate();
	expect(outcome.error).toBeUndefined();
	return trigger;
}

describe("the trigger's list reader", () => {
	it('a full read of 298 customers costs 3 requests: no page is asked for past the last customer', async () => {
		// Pages start at 0, 99 and 198; the third ends on customer 297, the last. A page at 297
		// would only repeat it.
		await activated(298);
		expect(requestsTo(sandbox, CUSTOMERS).map((r) => r.query.offset)).toEqual(['0', '99', '198']);
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
		sandbox.seedCustomers(250);
		sandbox.setFaults({ totalOverride: -5 });
		const outcome = await new TriggerHarness(credentialsFor(sandbox)).activate();
		expect(outcome.error).toBeUndefined();
		expect(requestsTo(sandbox, CUSTOMERS).map((r) => r.query.offset)).toEqual(['0', '99', '198']);
	});

	it('a total of 0 with hasMore: true is taken at its word: the read stops at once, naming it', async () => {
		sandbox.seedCustomers(250);
		sandbox.setFaults({ hasMoreForever: true, totalOverride: 0 });
		const outcome = await new TriggerHarness(credentialsFor(sandbox)).activate();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true past its own total of 0 customers',
		);
		expect(requestsTo(sandbox, CUSTOMERS).length).toBe(1);
	});

	it('hasMore: true at exactly the offset of the total stops there, after the pages that hold the list', async () => {
		sandbox.seedCustomers(250);
		sandbox.setFaults({ hasMoreForever: true, totalOverride: 198 });
		const outcome = await new TriggerHarness(credentialsFor(sandbox)).activate();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true past its own total of 198 customers',
		);
		expect((outcome.error as { description?: string }).description).toMatch(
			/The read stopped after 3 requests/,
		);
	});

	it('a fractional total bounds nothing: the read stops on pages without new customers instead', async () => {
		sandbox.seedCustomers(250);
		sandbox.setFaults({ hasMoreForever: true, totalOverride: 2.5 });
		const outcome = await new TriggerHarness(credentialsFor(sandbox)).activate();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true without new customers',
		);
	});

	it('a list empty at activation: the next poll reads from offset 0 and emits the first customers', async () => {
		const trigger = await activated(0);
		const added = sandbox.addCustomers(3).map((customer) => customer.id);
		sandbox.clearLog();
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(outcome.items.map((item) => item.id)).toEqual(added);
		expect(requestsTo(sandbox, CUSTOMERS).map((r) => r.query.offset)).toEqual(['0']);
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
