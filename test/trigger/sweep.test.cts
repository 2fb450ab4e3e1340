/**
 * A customer inserted inside the list while the last known customer keeps its offset (as many
 * deleted before it as inserted): the tail read cannot see it, the sweep must, within
 * ceil((N - 1) / 99) polls, whatever the list does afterwards.
 */
import type { Sandbox, SandboxCustomer } from '../sandbox/server.cjs';
import { credentialsFor, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { activatedTrigger, type PollOutcome, type TriggerHarness } from '../helpers/poll-harness.cjs';
import { CUSTOMER_LIST } from '../../nodes/BusinessCrm/api/lists';
import { SWEEP_STEP } from '../../nodes/BusinessCrmTrigger/sweep';

const CUSTOMERS = CUSTOMER_LIST.url;

let sandbox: Sandbox;
useSandbox({ businesses: 2, customers: 0 }, {}, (started) => (sandbox = started));

const ids = (outcome: PollOutcome) => outcome.items.map((customer) => String(customer.id));

/** At most this many polls until every customer before the last known one has been read. */
const bound = (n: number) => Math.ceil((n - 1) / SWEEP_STEP);

/**
 * Deletes the customers at `deleteAt` and inserts one customer at each of `insertAt` (offsets
 * before the last customer, so it keeps its offset when as many go as come): the inserted ones.
 */
function disturb(deleteAt: number[], insertAt: number[]): SandboxCustomer[] {
	expect(deleteAt).toHaveLength(insertAt.length);
	for (const at of [...deleteAt].sort((a, b) => b - a)) sandbox.customers.splice(at, 1);
	return insertAt.flatMap((at) => sandbox.addCustomers(1, { at }));
}

/** Polls `polls` times, appending `appendEach` customers before each: every id emitted, in order. */
async function pollFor(
	trigger: TriggerHarness,
	polls: number,
	appendEach = 0,
): Promise<{ emitted: string[]; appended: string[]; emptyPolls: number[] }> {
	const emitted: string[] = [];
	const appended: string[] = [];
	const emptyPolls: number[] = [];
	for (let poll = 0; poll < polls; poll++) {
		appended.push(...sandbox.addCustomers(appendEach).map((c) => c.id));
		sandbox.clearLog();
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		emitted.push(...ids(outcome));
		if (outcome.items.length === 0) emptyPolls.push(requestsTo(sandbox, CUSTOMERS).length);
	}
	return { emitted, appended, emptyPolls };
}

describe('a customer inserted inside the list', () => {
	it('is emitted once within 3 polls when one of 250 is deleted and one inserted at 100, and the list then grows at its end', async () => {
		sandbox.seedCustomers(250);
		const trigger = await activatedTrigger(credentialsFor(sandbox));
		const [inserted] = disturb([9], [100]);
		const { emitted, appended } = await pollFor(trigger, bound(250), 1);
		expect(emitted.filter((id) => id === inserted.id)).toHaveLength(1);
		expect(emitted.filter((id) => id !== inserted.id)).toEqual(appended);
		// Nothing more, ever: a whole cycle of the sweep later, nothing is emitted again.
		expect((await pollFor(trigger, bound(252))).emitted).toEqual([]);
	});

	it.each<[string, number, number[], number[]]>([
		['one page, a list that never changes again', 50, [0], [25]],
		['at the first offset', 250, [100], [0]],
		['at a join of two sweep pages', 250, [5], [99]],
		['just before the last known customer', 250, [0], [248]],
		['three deleted and three inserted, spread out', 1000, [5, 400, 990], [10, 500, 998]],
		['many pages, deep inside', 2000, [1999 - 3], [1500]],
	])('%s (N = %i): emitted once, within ceil((N - 1) / 99) polls', async (_, n, deleteAt, insertAt) => {
		sandbox.seedCustomers(n);
		const trigger = await activatedTrigger(credentialsFor(sandbox));
		// The sweep has moved on before the disturbance, as it would in a running n8n.
		await pollFor(trigger, 2);
		const inserted = disturb(deleteAt, insertAt).map((c) => c.id);
		const { emitted, emptyPolls } = await pollFor(trigger, bound(n));
		expect([...emitted].sort()).toEqual([...inserted].sort());
		// A poll with nothing new costs the tail and one sweep page.
		expect(emptyPolls.every((requests) => requests === 2)).toBe(true);
		expect((await pollFor(trigger, bound(n))).emitted).toEqual([]);
	});

	it('across a restart of n8n the customer is still found within the bound', async () => {
		sandbox.seedCustomers(500);
		const trigger = await activatedTrigger(credentialsFor(sandbox));
		await pollFor(trigger, 3);
		const [inserted] = disturb([1], [300]);
		const restarted = trigger.restarted(credentialsFor(sandbox));
		const first = await restarted.activate('init');
		const { emitted } = await pollFor(restarted, bound(500) - 1);
		expect([...ids(first), ...emitted]).toEqual([inserted.id]);
	});
});
