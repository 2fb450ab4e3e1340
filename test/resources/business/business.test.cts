import { startSandbox, type BusinessListShape, type Sandbox } from '../../sandbox/server.cjs';
import { runNode } from '../../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo } from '../../helpers/fixtures.cjs';
import { CHECK_THE_ID } from '../../../nodes/BusinessCrm/resources/business/get';

const LIST = '/api/business/list/all';

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
});
