import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type BusinessListShape, type Sandbox } from '../../sandbox/server.cjs';
import { listBusinesses, runNode } from '../../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo } from '../../helpers/fixtures.cjs';
import { clock, fastClock } from '../../helpers/clock.cjs';

const LIST = '/api/business/list/all';
/** Set by the mutation runs' jest config, which cannot afford a 30 s wait per mutant. */
const slowIt = (globalThis as { MUTATION_RUN?: boolean }).MUTATION_RUN ? it.skip : it;

describe('Business', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 45 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.clearLog();
		sandbox.setBusinessListShape('paginated');
	});

	const run = (parameters: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: { resource: 'business', ...parameters },
			items: items as never,
		});

	describe('Get', () => {
		it('gets one business by ID and outputs the record inside content', async () => {
			const business = sandbox.businesses[7];
			const { items, error } = await run({ operation: 'get', businessId: byId(business.id) });
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: business, pairedItem: { item: 0 } }]);
			expect(sandbox.requests.map((r) => [r.method, r.path, r.query, r.status])).toEqual([
				['GET', `/api/business/${business.id}`, {}, 200],
			]);
		});

		it('takes the ID from an expression and a list-mode locator, one request per item', async () => {
			const [a, b] = sandbox.businesses;
			const { items } = await run(
				{ operation: 'get', businessId: { __rl: true, mode: 'list', value: '={{ $json.id }}' } },
				[{ id: a.id }, { id: b.id }],
			);
			expect(items.map((item) => [item.json.id, item.pairedItem])).toEqual([
				[a.id, { item: 0 }],
				[b.id, { item: 1 }],
			]);
		});

		it('names the ID in a 404', async () => {
			const { items, error } = await run({ operation: 'get', businessId: byId('biz_missing') });
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				'Get business failed: the Business CRM API answered 404 "Not Found: Business biz_missing not found"',
			);
			expect(error?.description).toBe(
				'No business with ID "biz_missing" was found in this organization. Check the ID, or pick the business from the list.',
			);
		});
	});

	describe('Get Many', () => {
		it('follows the pagination the reply shows: first request bare, then limit/offset', async () => {
			const { items } = await run({ operation: 'getAll', returnAll: true });
			expect(items.map((item) => item.json)).toEqual(sandbox.businesses);
			// The bare first page holds the API's default 20; the next begins with its last one,
			// so that the two pages can be seen to join.
			expect(requestsTo(sandbox, LIST).map((r) => r.query)).toEqual([
				{},
				{ limit: '100', offset: '19' },
			]);
		});

		it('stops at the limit', async () => {
			const { items } = await run({ operation: 'getAll', returnAll: false, limit: 5 });
			expect(items.map((item) => item.json.id)).toEqual(
				sandbox.businesses.slice(0, 5).map((b) => b.id),
			);
			expect(requestsTo(sandbox, LIST)).toHaveLength(1);
		});

		it.each<BusinessListShape>([
			'array',
			'content-array',
			'content-businesses',
			'content-items',
			'data',
		])('understands the %s reply shape', async (shape) => {
			sandbox.setBusinessListShape(shape);
			const { items, error } = await run({ operation: 'getAll', returnAll: true });
			expect(error).toBeUndefined();
			expect(items).toEqual(sandbox.businesses.map((json) => ({ json, pairedItem: { item: 0 } })));
			expect(requestsTo(sandbox, LIST)).toHaveLength(1);
		});
	});

	describe('list search (Business locator, From List)', () => {
		it('lists every business with a readable name, reading every page', async () => {
			const { results } = await listBusinesses(credentialsFor(sandbox));
			expect(results).toEqual(sandbox.businesses.map((b) => ({ name: b.name, value: b.id })));
			expect(requestsTo(sandbox, LIST)).toHaveLength(2);
		});

		it('filters by name, case-insensitively', async () => {
			const target = sandbox.businesses[3];
			const { results } = await listBusinesses(credentialsFor(sandbox), target.name.toUpperCase());
			expect(results).toContainEqual({ name: target.name, value: target.id });
			expect(results.every((r) => r.name.toLowerCase().includes(target.name.toLowerCase()))).toBe(
				true,
			);
		});

		it('filters by ID', async () => {
			const target = sandbox.businesses[44];
			const { results } = await listBusinesses(credentialsFor(sandbox), target.id);
			expect(results).toEqual([{ name: target.name, value: target.id }]);
		});

		it('shows the ID beside the name only for businesses that share a name', async () => {
			const [first, second] = sandbox.businesses;
			const ownName = second.name;
			second.name = first.name;
			try {
				const { results } = await listBusinesses(credentialsFor(sandbox));
				expect(results.slice(0, 3)).toEqual([
					{ name: `${first.name} (${first.id})`, value: first.id },
					{ name: `${first.name} (${second.id})`, value: second.id },
					{ name: sandbox.businesses[2].name, value: sandbox.businesses[2].id },
				]);
			} finally {
				second.name = ownName;
			}
		});

		it('labels a business that has no name with its ID', async () => {
			const [first] = sandbox.businesses;
			const ownName = first.name;
			delete (first as { name?: string }).name;
			try {
				const { results } = await listBusinesses(credentialsFor(sandbox));
				expect(results[0]).toEqual({ name: first.id, value: first.id });
			} finally {
				first.name = ownName;
			}
		});

		it('works with an unpaginated array reply too', async () => {
			sandbox.setBusinessListShape('array');
			const { results } = await listBusinesses(credentialsFor(sandbox));
			expect(results).toHaveLength(45);
		});

		it('past the retry bounds of a 429 says to open the list again (no node Options apply here)', async () => {
			sandbox.setFaults({
				rateLimitBurst: { path: '/api/business/list/all', count: 6, retryAfter: 0 },
			});
			try {
				const failure = await listBusinesses(credentialsFor(sandbox)).then(
					() => undefined,
					(error: Error & { description?: string }) => error,
				);
				expect(failure?.message).toMatch(
					/^List businesses failed: the Business CRM API answered 429/,
				);
				expect(failure?.description).toMatch(
					/Gave up after 5 retries .*\)\. Wait a moment, then open the list again\.$/,
				);
			} finally {
				sandbox.resetFaults();
			}
		});

		// Left out of mutation runs (test/mutation/jest.config.js); test/api/failures.test.cts guards its words.
		slowIt(
			'gives up after 30 s when the API accepts the connection and never answers',
			async () => {
				const silent = createServer(() => {
					// Reads the request and never answers.
				});
				await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
				// 30 s on the package's clock, run 100 times faster.
				const fast = fastClock(100);
				const started = clock.now();
				try {
					const failure = await listBusinesses({
						...credentialsFor(sandbox),
						baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
					}).then(
						() => undefined,
						(error: Error & { description?: string }) => error,
					);
					const elapsed = clock.now() - started;
					expect(failure?.message).toBe('List businesses failed: no answer within 30 s');
					expect(failure?.description).toBe(
						'The Business CRM API did not answer within 30 s. Check that the API is up, then try again.',
					);
					expect(elapsed).toBeGreaterThanOrEqual(29_900);
					expect(elapsed).toBeLessThan(40_000);
				} finally {
					fast.restore();
					silent.closeAllConnections();
					await new Promise((resolve) => silent.close(resolve));
				}
			},
			10_000,
		);
	});
});

describe('business ids', () => {
	it('a number from an expression is a business id like any other', async () => {
		const sandbox = await startSandbox({ businesses: 1 });
		try {
			const { error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('={{ 42 }}') },
				credentials: {
					baseUrl: sandbox.url,
					apiKey: sandbox.apiKey,
					organizationId: sandbox.organizationId,
				},
			});
			expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/business/42']);
			expect(error?.message).toBe(
				'Get business failed: the Business CRM API answered 404 "Not Found: Business 42 not found"',
			);
		} finally {
			await sandbox.close();
		}
	});
});
