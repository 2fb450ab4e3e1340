/**
 * The trigger's promises when the list moves while a poll reads it (customers deleted, inserted
 * or appended between the answers to one poll's pages), when the credential's Base URL changes
 * only its password, and when Fetch Test Event meets a total that overstates the list. The
 * sandbox's onRequest hook changes the list between pages.
 */
import type { IDataObject } from 'n8n-workflow';
import type { RequestLogEntry, Sandbox, SandboxCustomer } from '../sandbox/server.cjs';
import { credentialsFor, failed, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { activatedTrigger, TriggerHarness, type PollOutcome } from '../helpers/poll-harness.cjs';
import { CUSTOMER_LIST, MAX_READS } from '../../nodes/BusinessCrm/api/lists';
import { KEPT_MOVING, MOVED_UNDER_EVERY_READ } from '../../nodes/BusinessCrm/api/listReader';
import { SOURCE } from '../../nodes/BusinessCrmTrigger/customerList';
import { fingerprint } from '../../nodes/BusinessCrmTrigger/seenCustomers';

const CUSTOMERS = CUSTOMER_LIST.url;
const N = 250;

let sandbox: Sandbox;

useSandbox({ businesses: 3, customers: 0 }, { customers: N }, (started) => (sandbox = started));

const ids = (outcome: PollOutcome) => outcome.items.map((customer) => customer.id);

const activated = async (credentials = credentialsFor(sandbox)) =>
	await activatedTrigger(credentials);

/** Runs `change` once, when the first customer-list request that `when` accepts arrives. */
function onceBefore(when: (offset: number) => boolean, change: () => void): void {
	let armed = true;
	sandbox.onRequest = (entry: RequestLogEntry) => {
		if (!armed || entry.path !== CUSTOMERS || !when(Number(entry.query.offset))) return;
		armed = false;
		change();
	};
}

describe('the list moving while a poll reads it', () => {
	it("a customer deleted while a full read's pages are answered is not emitted again", async () => {
		const trigger = await activated();
		// A customer inserted in the middle makes the next poll read the whole list.
		const [inserted] = sandbox.addCustomers(1, { at: 150 });
		// Before the full read's second page is answered, two old customers go: every customer
		// after them moves back two offsets, past the pages' overlap of one, so a customer at the
		// join of the pages is in neither.
		onceBefore(
			(offset) => offset > 0 && offset < N - 1,
			() => sandbox.customers.splice(10, 2),
		);
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		expect(ids(first)).toEqual([inserted.id]);

		// Another insertion: the next poll reads the whole list again; no old customer is new.
		sandbox.onRequest = undefined;
		const [again] = sandbox.addCustomers(1, { at: 20 });
		const second = await trigger.poll();
		expect(second.error).toBeUndefined();
		expect(ids(second)).toEqual([again.id]);
		expect(ids(await trigger.poll())).toEqual([]);
	});

	it('a customer appended while an older one is deleted during the poll is emitted by the next poll', async () => {
		const trigger = await activated();
		const added = sandbox.addCustomers(150);
		let appended: SandboxCustomer | undefined;
		// The tail read takes two pages; before the second is answered, two older customers are
		// deleted (one shift alone is absorbed by the page overlap) and one is appended, so the
		// second page starts further on and the customer before it is in neither page.
		onceBefore(
			(offset) => offset > N - 1,
			() => {
				sandbox.customers.splice(10, 2);
				appended = sandbox.addCustomers(1)[0];
			},
		);
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		sandbox.onRequest = undefined;
		const expected = [...added, appended].map((customer) => customer?.id);
		expect(first.items.length).toBeLessThan(expected.length);

		const second = await trigger.poll();
		expect(second.error).toBeUndefined();
		expect(ids(second)).toEqual(expected.filter((id) => !ids(first).includes(id)));
		expect([...ids(first), ...ids(second)].sort()).toEqual([...expected].sort());
		expect(ids(await trigger.poll())).toEqual([]);
	});

	it('a full read the list moves under at every poll forgets nothing and emits each new customer once', async () => {
		const trigger = await activated();
		const emitted: unknown[] = [];
		const expected: unknown[] = [];
		for (let poll = 0; poll < 4; poll++) {
			expected.push(...sandbox.addCustomers(1, { at: 100 + poll }).map((c) => c.id));
			onceBefore(
				(offset) => offset > 0 && offset < N - 10,
				() => {
					sandbox.customers.splice(5, 1);
					expected.push(...sandbox.addCustomers(1).map((c) => c.id));
				},
			);
			const outcome = await trigger.poll();
			expect(outcome.error).toBeUndefined();
			emitted.push(...ids(outcome));
		}
		sandbox.onRequest = undefined;
		emitted.push(...ids(await trigger.poll()));
		expect([...emitted].sort()).toEqual([...expected].sort());
	});

	it('an activation whose every read the list moves under fails and remembers nothing', async () => {
		let moves = 0;
		sandbox.onRequest = (entry) => {
			if (entry.path === CUSTOMERS && Number(entry.query.offset) === 99) {
				moves++;
				sandbox.customers.splice(5, 1);
			}
		};
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		const outcome = await trigger.activate();
		expect(moves).toBe(MAX_READS);
		expect(outcome.error?.message).toBe(
			failed(SOURCE.what, `${KEPT_MOVING}, ${MAX_READS} times in a row`),
		);
		// The advice says why and that nothing is lost: the next poll tries again.
		expect((outcome.error as { description?: string }).description).toBe(
			`Customers ${MOVED_UNDER_EVERY_READ} ${SOURCE.afterwards}`,
		);
		expect(trigger.nodeStaticData()).toEqual({});

		// Once the list holds still, the activation records it: nothing old is emitted later.
		sandbox.onRequest = undefined;
		expect((await trigger.activate()).error).toBeUndefined();
		const added = sandbox.addCustomers(2);
		expect(ids(await trigger.poll())).toEqual(added.map((c) => c.id));
	});

	it('an activation read once disturbed reads again and takes nothing old for new', async () => {
		onceBefore(
			(offset) => offset === 99,
			() => sandbox.customers.splice(5, 1),
		);
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		expect((await trigger.activate()).error).toBeUndefined();
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(6);
		sandbox.customers.splice(0, 1);
		const added = sandbox.addCustomers(1);
		expect(ids(await trigger.poll())).toEqual([added[0].id]);
	});
});

describe('an API that answers one customer per page', () => {
	// Pages of one customer cannot overlap, so a read cannot see the list move under it: each read
	// is made twice and trusted only when both agree.
	beforeEach(() => {
		sandbox.seedCustomers(6);
		sandbox.setFaults({ pageSizeCap: 1 });
	});

	it('an activation against pages of one customer succeeds, and each new customer is emitted once', async () => {
		const trigger = await activated();
		// Two reads of the 6 customers, a page each.
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(12);
		expect(trigger.nodeStaticData()).toMatchObject({ newCustomer: { count: 6 } });

		sandbox.clearLog();
		const added = sandbox.addCustomers(2);
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(ids(outcome)).toEqual(added.map((c) => c.id));
		// The tail from the last known customer, read twice: offsets 5, 6, 7; then the sweep's page.
		expect(requestsTo(sandbox, CUSTOMERS).map((r) => Number(r.query.offset))).toEqual([
			5, 6, 7, 5, 6, 7, 0,
		]);
		expect(trigger.nodeStaticData()).toMatchObject({ newCustomer: { count: 8 } });
		expect(ids(await trigger.poll())).toEqual([]);
	});

	/**
	 * Activates while the page at offset 2 of the `nth` request for it is answered after the first
	 * customer went, so the third customer is in no page of that read; then inserts a customer in
	 * the middle, which makes the next poll read the whole list, where a customer the activation
	 * had not remembered would show as new.
	 */
	async function skippedAtActivation(nth: number): Promise<void> {
		const [, , skipped] = sandbox.customers.map((c) => c.id);
		let asked = 0;
		sandbox.onRequest = (entry: RequestLogEntry) => {
			if (entry.path === CUSTOMERS && entry.query.offset === '2' && ++asked === nth)
				sandbox.customers.splice(0, 1);
		};
		const trigger = await activated();
		sandbox.onRequest = undefined;
		const [inserted] = sandbox.addCustomers(1, { at: 1 });
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(ids(outcome)).toEqual([inserted.id]);
		expect(ids(outcome)).not.toContain(skipped);
	}

	it('a customer one read of pages of one skipped is not taken for new later', async () => {
		await skippedAtActivation(1);
	});

	it('a customer the second of two reads of pages of one skipped is not taken for new later', async () => {
		await skippedAtActivation(2);
	});

	it('a list that moves between the two reads of pages of one loses and repeats no customer', async () => {
		const trigger = await activated();
		const added = sandbox.addCustomers(3);
		// Between the tail's two reads the first customer goes: the second read starts a customer
		// further on and the two disagree.
		onceBefore(
			(offset) => offset === 7,
			() => sandbox.customers.splice(0, 1),
		);
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		sandbox.onRequest = undefined;
		const second = await trigger.poll();
		expect(second.error).toBeUndefined();
		expect([...ids(first), ...ids(second)].sort()).toEqual(added.map((c) => c.id).sort());
		expect(ids(await trigger.poll())).toEqual([]);
	});
});

describe('the Base URL', () => {
	const withUser = (password: string, host = '127.0.0.1') =>
		sandbox.url.replace('http://127.0.0.1', `http://crm:${password}@${host}`);

	it('a new password in the Base URL does not reset the trigger', async () => {
		const trigger = await activated({ ...credentialsFor(sandbox), baseUrl: withUser('old-pw') });
		const added = sandbox.addCustomers(2);
		const rotated = trigger.restarted({ ...credentialsFor(sandbox), baseUrl: withUser('new-pw') });
		const outcome = await rotated.activate('update');
		expect(outcome.error).toBeUndefined();
		expect(ids(outcome)).toEqual(added.map((c) => c.id));
	});

	it('state saved before the address was normalised is taken over: nothing re-emitted, nothing lost', async () => {
		const credentials = { ...credentialsFor(sandbox), baseUrl: withUser('pw') };
		const trigger = await activated(credentials);
		// As the previous release saved it: the fingerprint of the address with its user info.
		const saved = JSON.parse(JSON.stringify(trigger.workflow.staticData)) as IDataObject;
		const state = (Object.values(saved)[0] as IDataObject).newCustomer as IDataObject;
		const normalised = state.source;
		state.source = fingerprint(`${credentials.baseUrl}\n${credentials.organizationId}`);
		expect(state.source).not.toBe(normalised);

		const added = sandbox.addCustomers(3);
		const upgraded = new TriggerHarness(credentials, {}, saved);
		const outcome = await upgraded.activate('init');
		expect(outcome.error).toBeUndefined();
		expect(ids(outcome)).toEqual(added.map((c) => c.id));
		expect(upgraded.nodeStaticData()).toMatchObject({ newCustomer: { source: normalised } });
		expect(ids(await upgraded.poll())).toEqual([]);
	});
});

describe('Fetch Test Event and a total that overstates the list', () => {
	/** The customer-list requests as [offset, limit]. */
	const sent = () =>
		requestsTo(sandbox, CUSTOMERS).map((r) => [Number(r.query.offset), Number(r.query.limit)]);

	beforeEach(() => {
		// A runaway walk stops here instead of sending a million requests.
		sandbox.onRequest = (entry) => {
			if (entry.path === CUSTOMERS && requestsTo(sandbox, CUSTOMERS).length > 20) {
				throw new Error('too many requests');
			}
		};
	});

	it('Fetch Test Event sends at most 3 requests when total overstates the list', async () => {
		sandbox.seedCustomers(3);
		sandbox.setFaults({ totalOverride: 1_000_000 });
		const { items, error } = await new TriggerHarness(credentialsFor(sandbox)).fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([sandbox.customers[2]]);
		// The first customer and the total; the last customer the total promises is not there, so
		// the list is read from its start.
		expect(sent()).toEqual([
			[0, 1],
			[999_999, 1],
			[0, 100],
		]);
	});

	it('Fetch Test Event with Business sends at most 2 + the pages of the list + 9 read ahead when total overstates the list', async () => {
		sandbox.seedCustomers(150);
		sandbox.setFaults({ totalOverride: 1_000_000 });
		const business = sandbox.businesses[1].id;
		const trigger = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: { __rl: true, mode: 'id', value: business } },
		});
		const { items, error } = await trigger.fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([sandbox.customers.filter((c) => c.businessId === business).at(-1)]);
		// The first page, the last page the total promises (empty), then the list from its start:
		// 2 pages for 150 customers, and up to 9 pages asked ahead of them, as the total allowed.
		const requests = sent();
		expect(requests.slice(0, 2)).toEqual([
			[0, 100],
			[999_900, 100],
		]);
		expect(requests.slice(2, 4).sort((a, b) => a[0] - b[0])).toEqual([
			[0, 100],
			[99, 100],
		]);
		expect(requests.length).toBeLessThanOrEqual(2 + 2 + 9);
	});

	it('Fetch Test Event sends whole offsets when the total is a fraction', async () => {
		sandbox.setFaults({ totalOverride: 250.5 });
		const { items, error } = await new TriggerHarness(credentialsFor(sandbox)).fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([sandbox.customers[N - 1]]);
		expect(sent().every(([offset]) => Number.isInteger(offset))).toBe(true);
		// Read as no total: the list from its start, in pages overlapping by one.
		expect(sent()).toEqual([
			[0, 1],
			[0, 100],
			[99, 100],
			[198, 100],
		]);
	});
});
