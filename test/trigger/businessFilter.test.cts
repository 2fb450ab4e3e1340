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
