/**
 * The Business CRM Trigger run by n8n-core's poll machinery (test/helpers/poll-harness.cts)
 * against the sandbox over real HTTP. Every case counts the requests a poll made against the
 * cost the README promises. Pages of 100 overlap by one customer, so the trigger can tell that
 * the list moved under a read: a poll that finds nothing new costs 1 request, k customers
 * appended cost max(1, ceil(k/99)), and a list that changed otherwise costs that tail read plus a
 * full read, max(1, ceil((N-1)/99)).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import {
	startSandbox,
	type Faults,
	type Sandbox,
	type SandboxCustomer,
} from '../sandbox/server.cjs';
import {
	answered,
	byId,
	credentialsFor,
	failed,
	requestsTo,
	useSandbox,
} from '../helpers/fixtures.cjs';
import { startApi, json } from '../helpers/scripted-api.cjs';
import { activatedTrigger, TriggerHarness, type PollOutcome } from '../helpers/poll-harness.cjs';
import {
	checkCredential,
	type CredentialProblem,
} from '../../nodes/BusinessCrm/credential/credential';
import {
	CUSTOMER_LIST,
	LIST_SHAPES_HELP,
	NO_ID,
	UNEXPECTED_SHAPE,
} from '../../nodes/BusinessCrm/api/lists';
import { NOT_JSON_REPLY } from '../../nodes/BusinessCrm/api/reply';
import { EMPTY_BUSINESS } from '../../nodes/BusinessCrm/params/parameters';
import {
	EMPTY_OPTION_HELP,
	NO_BUSINESS_ID,
	NO_BUSINESS_ID_HELP,
} from '../../nodes/BusinessCrmTrigger/businessFilter';
import { SOURCE } from '../../nodes/BusinessCrmTrigger/customerList';
import { FINGERPRINT_LENGTH } from '../../nodes/BusinessCrmTrigger/seenCustomers';

const CUSTOMERS = CUSTOMER_LIST.url;
const N = 250;

let sandbox: Sandbox;

useSandbox({ businesses: 3, customers: 0 }, { customers: N }, (started) => (sandbox = started));

/**
 * The customer list requests since the last call, as [offset, limit, status], by offset: pages
 * read at once arrive in any order; the tries of one page keep their order.
 */
function takeRequests(): Array<[number, number, number]> {
	const seen = requestsTo(sandbox, CUSTOMERS)
		.map(
			(r) => [Number(r.query.offset), Number(r.query.limit), r.status] as [number, number, number],
		)
		.sort((a, b) => a[0] - b[0]);
	sandbox.clearLog();
	return seen;
}

/** By offset, the tries of one offset in arrival order: pages read at once arrive in any order. */
function byOffset(requests: Array<[number, number, number]>): Array<[number, number, number]> {
	return [...requests].sort((a, b) => a[0] - b[0]);
}

/** A request for the page of 100 at `offset`, answered 200. */
const page = (offset: number): [number, number, number] => [offset, 100, 200];

/** The customer list requests since the last call are these, in any order of arrival. */
function expectRequests(expected: Array<[number, number, number]>): void {
	expect(byOffset(takeRequests())).toEqual(byOffset(expected));
}

/**
 * Reads of the whole list: pages of 100 overlapping by one, at offsets 0, 99, 198, … for n
 * customers (one request when empty).
 */
function fullRead(n: number): Array<[number, number, number]> {
	return Array.from({ length: Math.max(1, Math.ceil((n - 1) / 99)) }, (_, page) => [
		page * 99,
		100,
		200,
	]);
}

/** A trigger activated on the sandbox as it is now; its activation requests are taken. */
async function activated(parameters: INodeParameters = {}): Promise<TriggerHarness> {
	const trigger = await activatedTrigger(credentialsFor(sandbox), parameters);
	takeRequests();
	return trigger;
}

function expectEmitted(outcome: PollOutcome, customers: SandboxCustomer[]): void {
	expect(outcome.error).toBeUndefined();
	if (customers.length === 0) {
		expect(outcome.emits).toBe(0);
	} else {
		// One execution with one item per customer, in list order, each the record as served.
		expect(outcome.emits).toBe(1);
		expect(outcome.items).toEqual(customers);
	}
}

/** Why a read stops at a customer without an id. */
const NO_ID_MESSAGE = failed(SOURCE.what, `a ${SOURCE.one} ${NO_ID}`);

/** A poll that fails, under `faults` (reset after it): it emits nothing and changes no state. */
async function failedPoll(
	trigger: TriggerHarness,
	faults: Faults = {},
): Promise<Error & { description?: string }> {
	const before = trigger.nodeStaticData();
	sandbox.setFaults(faults);
	const outcome = await trigger.poll();
	sandbox.resetFaults();
	expect(outcome.emits).toBe(0);
	expect(trigger.nodeStaticData()).toEqual(before);
	return outcome.error as Error & { description?: string };
}

/** Appends a customer whose record has no businessId. */
function appendWithoutBusiness(): SandboxCustomer {
	const { businessId: _dropped, ...customer } = sandbox.addCustomers(1)[0];
	void _dropped;
	sandbox.customers[sandbox.customers.length - 1] = customer as SandboxCustomer;
	return customer as SandboxCustomer;
}

describe('first activation', () => {
	it('records every customer and emits nothing: max(1, ceil((N-1)/99)) requests', async () => {
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		const outcome = await trigger.activate();
		expectEmitted(outcome, []);
		expectRequests(fullRead(N));

		const { newCustomer: state } = trigger.nodeStaticData() as { newCustomer: IDataObject };
		expect(state).toMatchObject({ count: N, lastId: sandbox.customers[N - 1].id });
		expect((state.known as string).length).toBe(N * FINGERPRINT_LENGTH);
	});

	it('on an empty list costs one request, and the first customers are then emitted', async () => {
		sandbox.seedCustomers(0);
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		expectEmitted(await trigger.activate(), []);
		expectRequests([[0, 100, 200]]);

		expectEmitted(await trigger.poll(), []);
		expectRequests([[0, 100, 200]]);

		const added = sandbox.addCustomers(3);
		expectEmitted(await trigger.poll(), added);
		expectRequests([[0, 100, 200]]);

		// The tail from the last known customer, and the sweep's page of the customers before it.
		expectEmitted(await trigger.poll(), []);
		expectRequests([page(2), page(0)]);
	});
});

describe('an append-ordered list', () => {
	it('costs two requests per poll when nothing is new: the tail, and one page of the sweep through the known list', async () => {
		const trigger = await activated();
		// N = 250: the sweep reads offsets 0, 99 and 198 (its last page), then starts over.
		for (const sweep of [0, 99, 198, 0]) {
			expectEmitted(await trigger.poll(), []);
			expectRequests([page(N - 1), page(sweep)]);
		}
	});

	it('emits 1, 99, 100, 101 and 250 appended customers once each, in max(1, ceil(k/99)) requests', async () => {
		const trigger = await activated();
		let count = N;
		for (const k of [1, 99, 100, 101, 250]) {
			const added = sandbox.addCustomers(k);
			expectEmitted(await trigger.poll(), added);
			// One page of the sweep, before the last known customer; the rest is the tail.
			const [sweep, ...requests] = takeRequests();
			expect(sweep[0]).toBeLessThan(count - 1);
			expect(sweep[0] % 99).toBe(0);
			// The tail from the last known customer on: k + 1 customers, pages overlapping by one.
			expect(requests).toEqual(
				Array.from({ length: Math.max(1, Math.ceil(k / 99)) }, (_, page) => [
					count - 1 + page * 99,
					100,
					200,
				]),
			);
			count += k;

			expectEmitted(await trigger.poll(), []);
			expect(takeRequests().filter(([offset]) => offset >= count - 1)).toEqual([page(count - 1)]);
		}
	});
});

describe('a list that changed otherwise falls back to a full read and emits only the new', () => {
	it('customers inserted in the middle', async () => {
		const trigger = await activated();
		const inserted = sandbox.addCustomers(3, { at: 100 });
		expectEmitted(await trigger.poll(), inserted);
		// The tail read finds another customer at offset N-1, then the whole list is read.
		expectRequests([[N - 1, 100, 200], ...fullRead(N + 3)]);

		// The state follows the list: the next polls are cheap again.
		expectEmitted(await trigger.poll(), []);
		expectRequests([page(N + 2), page(0)]);
		const appended = sandbox.addCustomers(2);
		expectEmitted(await trigger.poll(), appended);
		expectRequests([page(N + 2), page(99)]);
	});

	it('customers deleted', async () => {
		const trigger = await activated();
		sandbox.customers.splice(10, 5);
		expectEmitted(await trigger.poll(), []);
		expectRequests([[N - 1, 100, 200], ...fullRead(N - 5)]);

		const appended = sandbox.addCustomers(2);
		expectEmitted(await trigger.poll(), appended);
		expectRequests([page(N - 6), page(0)]);
	});

	it('the list reordered', async () => {
		const trigger = await activated();
		sandbox.customers.reverse();
		expectEmitted(await trigger.poll(), []);
		expectRequests([[N - 1, 100, 200], ...fullRead(N)]);
	});

	it('the total shrinking, alone and with customers added', async () => {
		const trigger = await activated();
		sandbox.customers.length = 100;
		expectEmitted(await trigger.poll(), []);
		// Offset N-1 is past the end now: an empty page.
		expectRequests([[N - 1, 100, 200], ...fullRead(100)]);

		sandbox.customers.length = 90;
		const added = sandbox.addCustomers(4);
		expectEmitted(await trigger.poll(), added);
		expectRequests([[99, 100, 200], ...fullRead(94)]);
	});

	it('every customer deleted, then new ones', async () => {
		const trigger = await activated();
		sandbox.customers.length = 0;
		expectEmitted(await trigger.poll(), []);
		expectRequests([
			[N - 1, 100, 200],
			[0, 100, 200],
		]);

		const added = sandbox.addCustomers(2);
		expectEmitted(await trigger.poll(), added);
		expectRequests([[0, 100, 200]]);
	});
});

describe('nothing lost, nothing twice', () => {
	it('a poll failing mid-read changes nothing; the next one emits everything since', async () => {
		const trigger = await activated();
		const added = sandbox.addCustomers(250);
		const error = await failedPoll(trigger, {
			serverError: { path: CUSTOMERS, after: 1, count: 1 },
		});
		expect(error.message).toBe(
			answered(SOURCE.what, 500, '"Internal Server Error: Simulated server fault"'),
		);
		// The page after the failing one was asked for at the same time; its reply is dropped.
		expectRequests([
			[N - 1, 100, 200],
			[N + 98, 100, 500],
			[N + 197, 100, 200],
		]);

		expectEmitted(await trigger.poll(), added);
		expectRequests([
			page(0),
			[N - 1, 100, 200],
			[N + 98, 100, 200],
			[N + 197, 100, 200],
		]);
		expectEmitted(await trigger.poll(), []);
	});

	it('a reply that is not JSON during the full read changes nothing either', async () => {
		const trigger = await activated();
		const inserted = sandbox.addCustomers(1, { at: 0 });
		const error = await failedPoll(trigger, { notJson: { path: CUSTOMERS, after: 2, count: 1 } });
		expect(error.message).toBe(answered(SOURCE.what, 200, NOT_JSON_REPLY));
		takeRequests();

		expectEmitted(await trigger.poll(), inserted);
		expectRequests([[N - 1, 100, 200], ...fullRead(N + 1)]);
	});

	it('waits out a 429 as the API asks and goes on; past the retry bounds the poll fails and changes nothing', async () => {
		const trigger = await activated();
		const first = sandbox.addCustomers(150);
		sandbox.setFaults({
			rateLimitBurst: { path: CUSTOMERS, after: 1, count: 2, retryAfter: 0.05 },
		});
		expectEmitted(await trigger.poll(), first);
		expectRequests([
			page(0),
			[N - 1, 100, 200],
			[N + 98, 100, 429],
			[N + 98, 100, 429],
			[N + 98, 100, 200],
		]);

		const second = sandbox.addCustomers(5);
		// Six 429s in a row: one more than the default Max Retries (5).
		const error = await failedPoll(trigger, {
			rateLimitBurst: { path: CUSTOMERS, count: 6, retryAfter: 0 },
		});
		expect(error.message.startsWith(answered(SOURCE.what, 429))).toBe(true);
		expect(error.description).toMatch(
			/Gave up after 5 retries .*\)\. The next poll tries again\.$/,
		);
		expect(takeRequests()).toHaveLength(6);

		// The failed poll did not get to the sweep: it goes on from where the last one left it.
		expectEmitted(await trigger.poll(), second);
		expectRequests([page(N + 149), page(99)]);
	});

	it('a poll that starts while the previous one still reads emits nothing twice', async () => {
		// n8n starts a scheduled poll without waiting for the one before.
		const trigger = await activated();
		const added = sandbox.addCustomers(5);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 500 } });
		// The harness collects what either poll emits into the outcome of the latest one.
		const outcomes = new Set(await Promise.all([trigger.poll(), trigger.poll()]));
		expect(outcomes.size).toBe(1);
		expectEmitted([...outcomes][0], added);
		// Only the first poll read the list.
		expect(takeRequests()).toEqual([page(0), page(N - 1)]);
		sandbox.resetFaults();
		expectEmitted(await trigger.poll(), []);
	});

	it('customers added while n8n was stopped are emitted once by the first poll after the restart', async () => {
		const trigger = await activated();
		const beforeStop = sandbox.addCustomers(2);
		expectEmitted(await trigger.poll(), beforeStop);

		const whileStopped = sandbox.addCustomers(3);
		const restarted = trigger.restarted();
		expectEmitted(await restarted.activate('init'), whileStopped);
		takeRequests();
		expectEmitted(await restarted.poll(), []);
		expect(takeRequests().filter(([offset]) => offset >= N + 4)).toEqual([page(N + 4)]);
	});

	it('a customer without an id is refused as the first of its page too', async () => {
		const noId = { firstName: 'No', lastName: 'Id', businessId: sandbox.businesses[0].id };
		sandbox.customers[0] = noId as unknown as SandboxCustomer;
		const outcome = await new TriggerHarness(credentialsFor(sandbox), {}).activate();
		expect(outcome.emits).toBe(0);
		expect(outcome.error?.message).toBe(NO_ID_MESSAGE);
	});

	it('a customer without an id stops the poll rather than being emitted on every poll', async () => {
		const trigger = await activated();
		const before = trigger.nodeStaticData();
		const withoutId = { firstName: 'No', lastName: 'Id', businessId: sandbox.businesses[0].id };
		sandbox.customers.push(withoutId as unknown as SandboxCustomer);
		expect((await failedPoll(trigger)).message).toBe(NO_ID_MESSAGE);

		// The description names the record's first fields (at most 8), so the user can find it.
		const described = async (record: IDataObject) => {
			sandbox.customers[sandbox.customers.length - 1] = record as unknown as SandboxCustomer;
			return ((await trigger.poll()).error as Error & { description?: string }).description;
		};
		const explain = (list: string) =>
			`${SOURCE.idRequired} (its fields: ${list}). ${SOURCE.afterwards}`;
		expect(await described(withoutId)).toBe(explain('firstName, lastName, businessId'));
		expect(await described({})).toBe(explain('none'));
		const wide = Object.fromEntries('abcdefghij'.split('').map((key) => [key, 1]));
		expect(await described(wide)).toBe(explain('a, b, c, d, e, f, g, h'));
		expect(trigger.nodeStaticData()).toEqual(before);
	});

	it('two workflows with the same trigger node polling at once each emit the new customers', async () => {
		// A workflow copied by export and import keeps its node ids.
		const first = await activated();
		const copy = new TriggerHarness(credentialsFor(sandbox), {}, {}, 'copied-workflow');
		expectEmitted(await copy.activate(), []);
		const added = sandbox.addCustomers(2);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 300 } });
		const [a, b] = await Promise.all([first.poll(), copy.poll()]);
		sandbox.resetFaults();
		expectEmitted(a, added);
		expectEmitted(b, added);
	});
});

describe('Options › Business', () => {
	const businessOf = (index: number) => sandbox.businesses[index].id;

	it('emits only the customers of that business, and remembers the others', async () => {
		const trigger = await activated({ options: { businessId: byId(businessOf(1)) } });
		const added = sandbox.addCustomers(6);
		const ofBusiness = added.filter((c) => c.businessId === businessOf(1));
		expect(ofBusiness).toHaveLength(2);
		expectEmitted(await trigger.poll(), ofBusiness);
		expectRequests([page(N - 1), page(0)]);

		// Customers of the other businesses were seen: dropping the option emits none of them.
		expectEmitted(await trigger.restarted(credentialsFor(sandbox), {}).activate(), []);
	});

	it('stops with an error when the customers carry no businessId, and loses none of them', async () => {
		const trigger = await activated({ options: { businessId: byId(businessOf(0)) } });
		const withoutBusiness = appendWithoutBusiness();
		expect((await failedPoll(trigger)).message).toBe(NO_BUSINESS_ID);

		// With the option removed, the customer is emitted after all.
		const unfiltered = trigger.restarted(credentialsFor(sandbox), {});
		expectEmitted(await unfiltered.activate(), [withoutBusiness]);
	});

	it('fails the activation when the list cannot be filtered, and when the option is empty', async () => {
		sandbox.customers.forEach(
			(customer) => delete (customer as Partial<SandboxCustomer>).businessId,
		);
		const unplaceable = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: byId(businessOf(0)) },
		});
		const refused = await unplaceable.activate();
		expect(refused.error?.message).toMatch(/carry no businessId/);
		expect(unplaceable.nodeStaticData()).toEqual({});
		expectRequests(fullRead(N));

		const empty = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: { __rl: true, mode: 'list', value: '' } },
		});
		const outcome = await empty.activate();
		expect(outcome.error?.message).toBe(EMPTY_BUSINESS);
		expectRequests([]);
	});
});

describe('Options › Business, as older JSON and numeric ids give it', () => {
	it('a bare id with spaces, or a number, picks the same customers; a numeric businessId matches', async () => {
		const id = sandbox.businesses[1].id;
		for (const businessId of [`  ${id} `, { __rl: true, mode: 'id', value: ` ${id}` }]) {
			const trigger = await activated({ options: { businessId } });
			const added = sandbox.addCustomers(3);
			expectEmitted(
				await trigger.poll(),
				added.filter((c) => c.businessId === id),
			);
		}
		sandbox.businesses.push({ ...sandbox.businesses[0], id: '7' });
		try {
			const numeric = await activated({ options: { businessId: 7 } });
			const [seven] = sandbox.addCustomers(1, { businessId: 7 as unknown as string });
			sandbox.addCustomers(2, { businessId: sandbox.businesses[0].id });
			expectEmitted(await numeric.poll(), [seven]);
		} finally {
			sandbox.businesses.pop();
		}
	});

	it('says how to fix an empty option and customers without businessId', async () => {
		for (const saved of [null, { __rl: true, mode: 'id', value: null }]) {
			const unset = new TriggerHarness(credentialsFor(sandbox), { options: { businessId: saved } });
			expect((await unset.activate()).error?.message).toBe(EMPTY_BUSINESS);
		}
		const empty = new TriggerHarness(credentialsFor(sandbox), { options: { businessId: '  ' } });
		const outcome = await empty.activate();
		expect(outcome.error?.message).toBe(EMPTY_BUSINESS);
		expect((outcome.error as { description?: string } | undefined)?.description).toBe(
			EMPTY_OPTION_HELP,
		);
		const trigger = await activated({ options: { businessId: byId(sandbox.businesses[0].id) } });
		const withoutBusiness = appendWithoutBusiness();
		expect((await failedPoll(trigger)).description).toBe(
			`Customer ${withoutBusiness.id} ${NO_BUSINESS_ID_HELP}`,
		);
	});
});

describe('Fetch Test Event (manual mode)', () => {
	/** Fetch Test Event with Options › Business returns that business's newest customer alone. */
	async function expectNewestOf(business: string): Promise<void> {
		const newest = sandbox.customers.filter((c) => c.businessId === business).at(-1);
		const trigger = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: byId(business) },
		});
		const { items, error } = await trigger.fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([newest]);
	}

	it('without a total in the reply, reads to the end and returns the last customer', async () => {
		sandbox.setFaults({ omitTotal: true });
		try {
			const trigger = new TriggerHarness(credentialsFor(sandbox));
			const { items, error } = await trigger.fetchTestEvent();
			expect(error).toBeUndefined();
			expect(items).toEqual([sandbox.customers[N - 1]]);
			// The first page (of 1) says more follow but not how many: the list is read to its end.
			expect(takeRequests()).toEqual([[0, 1, 200], ...fullRead(N)]);
		} finally {
			sandbox.resetFaults();
		}
	});

	it('returns the newest customer in two requests and records nothing', async () => {
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		const { items, error } = await trigger.fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([sandbox.customers[N - 1]]);
		expectRequests([
			[0, 1, 200],
			[N - 1, 1, 200],
		]);
		expect(trigger.nodeStaticData()).toEqual({});

		// Nor does it disturb an activated trigger's state: the customer added is still new.
		const activatedTrigger = await activated();
		const before = activatedTrigger.nodeStaticData();
		const added = sandbox.addCustomers(1);
		expect((await activatedTrigger.fetchTestEvent()).items).toEqual(added);
		expect(activatedTrigger.nodeStaticData()).toEqual(before);
		takeRequests();
		expectEmitted(await activatedTrigger.poll(), added);
	});

	it("with Business, reads back from the end until that business's newest customer", async () => {
		const business = sandbox.businesses[2].id;
		// The last 150 customers belong to other businesses.
		sandbox.addCustomers(150, { businessId: sandbox.businesses[0].id });
		await expectNewestOf(business);
		expectRequests([
			[0, 100, 200],
			[N + 50, 100, 200],
			[N - 50, 100, 200],
		]);
	});

	it("with Business whose customers are all on the first page, walks back to it and returns that business's newest", async () => {
		sandbox.seedCustomers(30);
		const business = sandbox.businesses[2].id;
		// Customers 30 to 179 belong to another business: the page read back from the total holds
		// none of this one's, and the walk ends at the first page, already read.
		sandbox.addCustomers(150, { businessId: sandbox.businesses[0].id });
		await expectNewestOf(business);
		expectRequests([
			[0, 100, 200],
			[100, 80, 200],
		]);
	});

	it('with Business on a list of one page, returns only the newest of that business', async () => {
		sandbox.seedCustomers(30);
		const business = sandbox.businesses[1].id;
		await expectNewestOf(business);
		expectRequests([[0, 100, 200]]);
	});

	it('takes a reply without pagination for the whole list (one request), and names a reply without a list', async () => {
		const customers = [
			{ id: 'cust_a', firstName: 'Ada' },
			{ id: 'cust_b', firstName: 'Bob' },
		];
		let body: unknown = { content: { customers } };
		const api = await startApi((_request, _url, response) => json(response, 200, body));
		try {
			const found = await new TriggerHarness(api.credentials).fetchTestEvent();
			expect(found.error).toBeUndefined();
			expect(found.items).toEqual([customers[1]]);
			expect(api.urls.map((url) => url.pathname + url.search)).toEqual([
				`${CUSTOMERS}?limit=1&offset=0`,
			]);

			body = { content: { items: 'none' } };
			const { error } = await new TriggerHarness(api.credentials).fetchTestEvent();
			expect(error?.message).toBe(failed(SOURCE.what, UNEXPECTED_SHAPE));
			// Every error of the trigger's reads ends by saying the poll changed nothing.
			expect(error?.description?.endsWith(` ${LIST_SHAPES_HELP} ${SOURCE.afterwards}`)).toBe(true);
		} finally {
			await api.close();
		}
	});

	it('returns nothing for an empty list', async () => {
		sandbox.seedCustomers(0);
		const { items, error } = await new TriggerHarness(credentialsFor(sandbox)).fetchTestEvent();
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expectRequests([[0, 1, 200]]);
	});
});

describe('the credential', () => {
	it('pointed at another organization starts over: records, emits nothing', async () => {
		const trigger = await activated();
		const other = {
			...credentialsFor(sandbox),
			apiKey: sandbox.otherOrgApiKey,
			organizationId: sandbox.otherOrganizationId,
		};
		expectEmitted(await trigger.restarted(other).activate('update'), []);
		// And back: the first organization's customers are not all new again.
		const back = trigger.restarted(other).restarted(credentialsFor(sandbox));
		expectEmitted(await back.activate('update'), []);
	});

	it('pointed at another API with customers of its own starts over: records, emits nothing', async () => {
		const other = await startSandbox({ businesses: 1, customers: 0 });
		try {
			const ids = ['cust_elsewhere_1', 'cust_elsewhere_2', 'cust_elsewhere_3'];
			for (const id of ids) {
				other.customers.push({
					id,
					businessId: other.businesses[0].id,
					firstName: 'Else',
					lastName: 'Where',
					createdAt: new Date().toISOString(),
				});
			}
			const trigger = await activated();
			const moved = trigger.restarted(credentialsFor(other));
			expectEmitted(await moved.activate('update'), []);
			const added = other.addCustomers(1);
			expectEmitted(await moved.poll(), added);
		} finally {
			await other.close();
		}
	});

	it('with a Base URL the node cannot use fails the activation, says why, and records nothing', async () => {
		const trigger = new TriggerHarness({ ...credentialsFor(sandbox), baseUrl: 'ftp://127.0.0.1' });
		const outcome = await trigger.activate();
		expect(outcome.emits).toBe(0);
		expect(outcome.error?.message).toBe(
			(checkCredential({ ...trigger.credentials }) as CredentialProblem).problem,
		);
		expect(trigger.nodeStaticData()).toEqual({});
		expect(takeRequests()).toEqual([]);
	});

	it('with spaces typed around the Organization ID is the same organization: nothing starts over', async () => {
		const trigger = await activated();
		const added = sandbox.addCustomers(2);
		const spaced = {
			...credentialsFor(sandbox),
			organizationId: `  ${credentialsFor(sandbox).organizationId} `,
		};
		expectEmitted(await trigger.restarted(spaced).activate('update'), added);
	});

	// n8n keeps one poll context while the workflow is active, across edits of its credential.
	it('edited while the workflow is active: the next poll sends the new key, and an echo of it is redacted', async () => {
		const credentials = credentialsFor(sandbox);
		const trigger = new TriggerHarness(credentials);
		expectEmitted(await trigger.activate(), []);
		const rotated = 'sk_rotated_9Vd4Rk8Zt3Wm6Hs1Nb5Jc0Fy';
		credentials.apiKey = rotated;
		const sent: unknown[] = [];
		sandbox.onRequest = (entry) => {
			sent.push(entry.headers['x-api-key']);
			throw new Error(`key ${entry.headers['x-api-key']} is not known`);
		};
		const failed = await trigger.poll();
		expect(sent).toEqual([rotated]);
		const error = failed.error as Error & { description?: string };
		expect(error.message).toContain('key [redacted] is not known');
		expect(JSON.stringify([error.message, error.description, error])).not.toContain(rotated);
	});
});

describe('the remembered state', () => {
	it('saved by another version of its shape is not trusted: the trigger starts over', async () => {
		const trigger = await activated();
		sandbox.addCustomers(3);
		const saved = JSON.parse(JSON.stringify(trigger.workflow.staticData)) as IDataObject;
		const state = Object.values(saved)[0] as IDataObject;
		const stateKey = Object.keys(state)[0];
		(state[stateKey] as IDataObject).version = 2;
		const upgraded = new TriggerHarness(credentialsFor(sandbox), {}, saved);
		expectEmitted(await upgraded.activate('init'), []);
		expect(upgraded.nodeStaticData()).toMatchObject({ [stateKey]: { version: 1, count: N + 3 } });
	});

	// 1,000 pages and 100,000 fingerprints: slow under coverage instrumentation on a busy machine;
	// the promise is bytes and requests, not time.
	it('takes 11 bytes per known customer at N = 100,000, and a poll there still costs two requests', async () => {
		const big = 100_000;
		sandbox.seedCustomers(big);
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		expectEmitted(await trigger.activate(), []);
		expect(takeRequests()).toHaveLength(Math.ceil((big - 1) / 99));

		const bytes = Buffer.byteLength(JSON.stringify(trigger.nodeStaticData()));
		expect(bytes).toBeGreaterThanOrEqual(big * FINGERPRINT_LENGTH);
		// The rest is a fixed header: version, source, count and the last id.
		expect(bytes - big * FINGERPRINT_LENGTH).toBeLessThan(200);

		expectEmitted(await trigger.poll(), []);
		expectRequests([page(big - 1), page(0)]);
		const added = sandbox.addCustomers(100);
		expectEmitted(await trigger.poll(), added);
		expectRequests([page(99), [big - 1, 100, 200], [big + 98, 100, 200]]);
	}, 180_000);
});
