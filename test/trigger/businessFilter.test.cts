/**
 * A Business ID the organization does not have (mistyped, or of another organization) is an
 * error naming it, where it would otherwise match no customer and report success: Customer › Get
 * Many › Filters › Business, and the trigger's Options › Business (Fetch Test Event and
 * activation). The API is asked once per run, or once per activation.
 */
import { type Sandbox } from '../sandbox/server.cjs';
import { runNode } from '../helpers/harness.cjs';
import { answered, byId, credentialsFor, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';
import { CHECK_WHAT, UNKNOWN_BUSINESS_HELP } from '../../nodes/BusinessCrm/api/businessCheck';
import { CUSTOMER_LIST } from '../../nodes/BusinessCrm/api/lists';
import { NO_BUSINESS_ID, NO_BUSINESS_ID_HELP } from '../../nodes/BusinessCrmTrigger/businessFilter';

const CUSTOMERS = CUSTOMER_LIST.url;
const MISSING = 'biz_mistyped42';
const MESSAGE = `No business ${MISSING} in this organization`;

let sandbox: Sandbox;

useSandbox({ businesses: 3, customers: 30 }, {}, (started) => (sandbox = started));

const checks = (id: string) => requestsTo(sandbox, `/api/business/${id}`);

describe('Customer › Get Many › Filters › Business', () => {
	const getMany = (businessId: string, onError?: 'continueRegularOutput') =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'getAll',
				returnAll: true,
				filters: { businessId: byId(businessId) },
			},
			items: [{ row: 1 }, { row: 2 }, { row: 3 }],
			onError,
		});

	it("an unknown business is an error naming it in Get Many's filter", async () => {
		const { error } = await getMany(MISSING);
		expect(error?.message).toBe(MESSAGE);
		expect(error?.description).toBe(`Filters › Business ${UNKNOWN_BUSINESS_HELP}`);
		expect(checks(MISSING)).toHaveLength(1);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('checks the business once per run, whatever the number of items, and each item reports it', async () => {
		const { items } = await getMany(MISSING, 'continueRegularOutput');
		expect(items.map((item) => item.json.error)).toEqual(
			[0, 1, 2].map(() => expect.stringMatching(new RegExp(`^${MESSAGE}\\. Filters › Business`))),
		);
		expect(checks(MISSING)).toHaveLength(1);

		sandbox.clearLog();
		const known = sandbox.businesses[1].id;
		const found = await getMany(known);
		expect(found.error).toBeUndefined();
		expect(found.items).toHaveLength(
			3 * sandbox.customers.filter((c) => c.businessId === known).length,
		);
		expect(checks(known)).toHaveLength(1);
		// A new run asks again: the business may have been deleted since.
		await getMany(known);
		expect(checks(known)).toHaveLength(2);
	});
});

describe("the trigger's Options › Business", () => {
	const trigger = (businessId: string) =>
		new TriggerHarness(credentialsFor(sandbox), { options: { businessId: byId(businessId) } });

	it('an unknown business is an error naming it in Fetch Test Event', async () => {
		const { items, error } = await trigger(MISSING).fetchTestEvent();
		expect(items).toEqual([]);
		expect(error?.message).toBe(MESSAGE);
		expect(error?.description).toBe(`Options › Business ${UNKNOWN_BUSINESS_HELP}`);
		expect(checks(MISSING)).toHaveLength(1);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('an unknown business is an error naming it at activation, and nothing is remembered', async () => {
		const missing = trigger(MISSING);
		const outcome = await missing.activate();
		expect(outcome.emits).toBe(0);
		expect(outcome.error?.message).toBe(MESSAGE);
		expect(missing.nodeStaticData()).toEqual({});
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('a list of businesses is refused at activation, in words that name the option and the expression', async () => {
		const ids = `["${sandbox.businesses[0].id}", "${sandbox.businesses[1].id}"]`;
		const outcome = await trigger(`={{ ${ids} }}`).activate();
		expect(outcome.error?.message).toBe('Options › Business is a list of 2 values, not one value');
		expect((outcome.error as Error & { description?: string }).description).toBe(
			`Options › Business takes one value, and the expression gave a list. Pick one value, for example the first with {{ ${ids}[0] }}, or split the list into items first (Split Out node) to handle each value.`,
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('a known business is checked once per activation, not at every poll', async () => {
		const known = sandbox.businesses[2].id;
		const active = trigger(known);
		expect((await active.activate()).error).toBeUndefined();
		await active.poll();
		await active.poll();
		expect(checks(known)).toHaveLength(1);
		// n8n restarted: a new activation asks again.
		expect((await active.restarted().activate('init')).error).toBeUndefined();
		expect(checks(known)).toHaveLength(2);
	});

	it('a check that failed for another reason than an unknown business is asked again by the next poll', async () => {
		const known = sandbox.businesses[0].id;
		const active = trigger(known);
		sandbox.setFaults({ serverError: { path: `/api/business/${known}`, count: 1 } });
		try {
			const failed = await active.activate();
			expect(failed.error?.message.startsWith(answered(CHECK_WHAT, 500))).toBe(true);
		} finally {
			sandbox.resetFaults();
		}
		const outcome = await active.poll();
		expect(outcome.error).toBeUndefined();
		expect(checks(known)).toHaveLength(2);
	});
});

describe("Options › Business and a customer's businessId that is empty, blank or padded", () => {
	const business = () => sandbox.businesses[1].id;

	/** A trigger of `business()`, activated on the sandbox's list as it is now. */
	async function activatedOfBusiness(): Promise<TriggerHarness> {
		const active = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: byId(business()) },
		});
		const outcome = await active.activate();
		expect(outcome.error).toBeUndefined();
		return active;
	}

	/** A poll that fails because a customer names no business: nothing emitted or remembered. */
	async function refusedPoll(active: TriggerHarness, customerId: string): Promise<void> {
		const before = active.nodeStaticData();
		const outcome = await active.poll();
		expect(outcome.emits).toBe(0);
		expect(outcome.error?.message).toBe(NO_BUSINESS_ID);
		expect((outcome.error as { description?: string }).description).toBe(
			`Customer ${customerId} ${NO_BUSINESS_ID_HELP}`,
		);
		expect(active.nodeStaticData()).toEqual(before);
	}

	const ids = (items: Array<{ id?: unknown }>) => items.map((item) => item.id);

	it.each([
		['empty', ''],
		['spaces', '   '],
		['a zero-width space', '\u200B'],
		['a no-break space and a byte order mark', '\u00A0\uFEFF'],
		// Not text: read as text, true would be a business named "true", never this one.
		['true', true],
	])(
		'a new customer whose businessId is %s is an error, as a missing one is, and is emitted once the record names the business',
		async (_, blank) => {
			const active = await activatedOfBusiness();
			const [customer] = sandbox.addCustomers(1, { businessId: blank as string });
			await refusedPoll(active, customer.id);
			// Still unfixed: the next poll says so again rather than forgetting it.
			await refusedPoll(active, customer.id);

			customer.businessId = business();
			const fixed = await active.poll();
			expect(fixed.error).toBeUndefined();
			expect(ids(fixed.items)).toEqual([customer.id]);
			expect((await active.poll()).emits).toBe(0);
		},
	);

	it.each([
		['spaces around it', (id: string) => `  ${id} `],
		['a zero-width space and a byte order mark around it', (id: string) => `\u200B${id}\uFEFF`],
		['a no-break space after it', (id: string) => `${id}\u00A0`],
	])(
		'a new customer whose businessId has %s belongs to that business and is emitted',
		async (_, padded) => {
			const active = await activatedOfBusiness();
			const [mine] = sandbox.addCustomers(1, { businessId: padded(business()) });
			// Padded too, but another business's: remembered, not emitted.
			sandbox.addCustomers(1, { businessId: padded(sandbox.businesses[0].id) });
			const outcome = await active.poll();
			expect(outcome.error).toBeUndefined();
			expect(ids(outcome.items)).toEqual([mine.id]);
			expect((await active.poll()).emits).toBe(0);
		},
	);

	it('a blank businessId found inside the list by a whole read is an error, and the customer is emitted once fixed', async () => {
		const active = await activatedOfBusiness();
		// An insertion alone moves the last known customer: the next poll reads the whole list.
		const [customer] = sandbox.addCustomers(1, { at: 10, businessId: ' ' });
		await refusedPoll(active, customer.id);
		customer.businessId = business();
		const fixed = await active.poll();
		expect(fixed.error).toBeUndefined();
		expect(ids(fixed.items)).toEqual([customer.id]);
		expect((await active.poll()).emits).toBe(0);
	});

	it('a blank businessId found inside the list by the sweep is an error, and the customer is emitted once fixed', async () => {
		const active = await activatedOfBusiness();
		// One deleted and one inserted before the last known customer: it keeps its offset, so
		// only the sweep (one page: the whole of these 30 customers) finds the inserted one.
		sandbox.customers.splice(3, 1);
		const [customer] = sandbox.addCustomers(1, { at: 10, businessId: '' });
		await refusedPoll(active, customer.id);
		customer.businessId = ` ${business()}`;
		const fixed = await active.poll();
		expect(fixed.error).toBeUndefined();
		expect(ids(fixed.items)).toEqual([customer.id]);
		expect((await active.poll()).emits).toBe(0);
	});

	it('an activation that finds a customer with an empty businessId fails and remembers nothing', async () => {
		sandbox.customers[4].businessId = '';
		const refused = new TriggerHarness(credentialsFor(sandbox), {
			options: { businessId: byId(business()) },
		});
		const outcome = await refused.activate();
		expect(outcome.error?.message).toBe(NO_BUSINESS_ID);
		expect(refused.nodeStaticData()).toEqual({});
	});
});
