import { startSandbox, type BusinessListShape, type Sandbox } from '../../sandbox/server.cjs';
import { listBusinesses, runNode } from '../../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo } from '../../helpers/fixtures.cjs';
import { startApi, never } from '../../helpers/scripted-api.cjs';
import { clock, fastClock } from '../../helpers/clock.cjs';
import { OPEN_LIST_AGAIN } from '../../../nodes/BusinessCrm/api/rateLimit';
import { API_UP_HELP } from '../../../nodes/BusinessCrm/api/failures';
import { CHECK_THE_ID } from '../../../nodes/BusinessCrm/resources/business/get';

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

		// Sent percent-encoded, to exactly /api/business/<id>: no ID points the request elsewhere.
		it.each([
			['biz_missing', '/api/business/biz_missing'],
			['a/b', '/api/business/a%2Fb'],
			['a?b=1', '/api/business/a%3Fb%3D1'],
			['a#b', '/api/business/a%23b'],
			['biz/../list/all', '/api/business/biz%2F..%2Flist%2Fall'],
			['../../public/v1/customers', '/api/business/..%2F..%2Fpublic%2Fv1%2Fcustomers'],
			['x..y', '/api/business/x..y'],
			['...', '/api/business/...'],
			['biz 1', '/api/business/biz%201'],
			['café-€', '/api/business/caf%C3%A9-%E2%82%AC'],
			['東京', '/api/business/%E6%9D%B1%E4%BA%AC'],
			['100%', '/api/business/100%25'],
			['%2e%2e', '/api/business/%252e%252e'],
			['a&b=c+d', '/api/business/a%26b%3Dc%2Bd'],
		])('%j goes to %s, and the 404 names it', async (id, path) => {
			const { items, error } = await run({ operation: 'get', businessId: byId(id) });
			expect(items).toEqual([]);
			expect(
				sandbox.requests.map((request) => [request.method, request.path, request.status]),
			).toEqual([['GET', path, 404]]);
			expect(error?.message).toBe(
				`Get business failed: the Business CRM API answered 404 "Not Found: Business ${id} not found"`,
			);
			expect(error?.description).toBe(
				`No business with ID "${id}" was found in this organization. ${CHECK_THE_ID}`,
			);
			expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('404');
		});

		it('a number from an expression is a business id like any other', async () => {
			const { error } = await run({ operation: 'get', businessId: byId('={{ 42 }}') });
			expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/business/42']);
			expect(error?.message).toBe(
				'Get business failed: the Business CRM API answered 404 "Not Found: Business 42 not found"',
			);
		});

		it('gets a business whose id holds /, ?, #, .., a space and non-ASCII', async () => {
			const odd = { ...sandbox.businesses[0], id: 'biz/../x?y=1#z ü' };
			sandbox.businesses.push(odd);
			try {
				const { items, error } = await run({ operation: 'get', businessId: byId(odd.id) });
				expect(error).toBeUndefined();
				expect(items).toEqual([{ json: odd, pairedItem: { item: 0 } }]);
				expect(sandbox.requests.map((request) => request.path)).toEqual([
					'/api/business/biz%2F..%2Fx%3Fy%3D1%23z%20%C3%BC',
				]);
			} finally {
				sandbox.businesses.pop();
			}
		});

		it('trims the id before encoding it', async () => {
			const id = sandbox.businesses[1].id;
			const { error } = await run({ operation: 'get', businessId: byId(`  ${id}\n`) });
			expect(error).toBeUndefined();
			expect(sandbox.requests.map((request) => request.path)).toEqual([`/api/business/${id}`]);
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
				expect(failure?.description).toMatch(/Gave up after 5 retries .*\)\. /);
				expect(failure?.description?.endsWith(OPEN_LIST_AGAIN)).toBe(true);
			} finally {
				sandbox.resetFaults();
			}
		});

		// Left out of mutation runs (test/mutation/jest.config.js); test/api/failures.test.cts guards its words.
		slowIt(
			'gives up after 30 s when the API accepts the connection and never answers',
			async () => {
				const silent = await startApi(never);
				// 30 s on the package's clock, run 100 times faster.
				const fast = fastClock(100);
				const started = clock.now();
				try {
					const failure = await listBusinesses(silent.credentials).then(
						() => undefined,
						(error: Error & { description?: string }) => error,
					);
					const elapsed = clock.now() - started;
					expect(failure?.message).toBe('List businesses failed: no answer within 30 s');
					expect(failure?.description).toBe(
						`The Business CRM API did not answer within 30 s. ${API_UP_HELP}`,
					);
					expect(elapsed).toBeGreaterThanOrEqual(29_900);
					expect(elapsed).toBeLessThan(40_000);
				} finally {
					fast.restore();
					await silent.close();
				}
			},
			10_000,
		);
	});
});
