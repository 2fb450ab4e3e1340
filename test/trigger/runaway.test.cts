/**
 * The trigger's own list reader always ends: an API that answers hasMore: true past its total,
 * without a total, with empty pages, or for another offset than the one asked for stops the poll
 * with an error after a bounded number of requests, and nothing is emitted or remembered.
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { credentialsFor, requestsTo } from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';

const CUSTOMERS = '/api/public/v1/customers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ businesses: 2, customers: 0 });
});

afterAll(async () => await sandbox.close());

beforeEach(() => {
	sandbox.seedCustomers(250);
	sandbox.resetFaults();
	sandbox.clearLog();
});

async function activation() {
	const trigger = new TriggerHarness(credentialsFor(sandbox));
	return { trigger, outcome: await trigger.activate() };
}

describe("the trigger's list read always ends", () => {
	it('hasMore: true past the total stops the activation, naming the total', async () => {
		sandbox.setFaults({ hasMoreForever: true });
		const { outcome } = await activation();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true past its own total of 250 customers',
		);
		expect(outcome.emits).toBe(0);
		// 3 pages hold the list; the reads ahead are bounded by the gate, not by the lie.
		expect(requestsTo(sandbox, CUSTOMERS).length).toBeLessThan(20);
	});

	it('hasMore: true without a total stops after 10 pages that bring no new customer', async () => {
		sandbox.setFaults({ hasMoreForever: true, omitTotal: true });
		const { outcome } = await activation();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true without new customers',
		);
		expect((outcome.error as { description?: string } | undefined)?.description ?? '').toMatch(
			/the last 10 brought nothing new and no total was given/,
		);
		expect(outcome.emits).toBe(0);
		expect(requestsTo(sandbox, CUSTOMERS).length).toBeLessThan(30);
	});

	it('empty pages with hasMore: true stop the read', async () => {
		sandbox.setFaults({ emptyPagesWithHasMore: true, omitTotal: true });
		const { outcome } = await activation();
		expect(outcome.error?.message).toBe(
			'Read customers failed: the API kept answering hasMore: true without new customers',
		);
		expect(requestsTo(sandbox, CUSTOMERS).length).toBeLessThan(30);
	});

	it('a reply for another offset than the one asked for stops the read', async () => {
		sandbox.setFaults({ offsetOverride: 0 });
		const { outcome } = await activation();
		expect(outcome.error?.message).toMatch(
			/^Read customers failed: the API answered for offset 0 when offset \d+ was asked for$/,
		);
		expect((outcome.error as { description?: string } | undefined)?.description).toBe(
			'The read stopped rather than skip or repeat customers. This is an inconsistency in the API. Nothing was emitted or remembered; the next poll tries again.',
		);
		expect(outcome.emits).toBe(0);
	});

	it('after a failed activation read, nothing was remembered: the next good poll only records', async () => {
		sandbox.setFaults({ hasMoreForever: true });
		const { trigger } = await activation();
		sandbox.resetFaults();
		const next = await trigger.poll();
		expect(next.error).toBeUndefined();
		expect(next.emits).toBe(0);
	});
});
