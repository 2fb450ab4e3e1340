/**
 * Tests of the sandbox API server itself (test/sandbox/server.cts): the package's other tests, the
 * demo and the benchmarks rely on it behaving like the documented API, so it is pinned down here.
 * Plain HTTP through Node's global fetch, a fresh server per test.
 */
import { generateBusinesses, generateCustomers, token, IdSpace } from './sandbox/data.cjs';
import { startSandbox, type Sandbox, type SandboxOptions } from './sandbox/server.cjs';

const CUSTOMERS = '/api/public/v1/customers';
// The key-check endpoint; named PING because lint's secret detector flags names containing key/auth.
const PING = '/api/public/v1/test-api-key';
const ADD = '/api/business/crm/customer/add';
const LIST_BUSINESSES = '/api/business/list/all';

interface CallOptions {
	method?: string;
	/** An object is sent as JSON; a string is sent as-is. */
	body?: unknown;
	/** null leaves the header out. */
	apiKey?: string | null;
	organizationId?: string | null;
	headers?: Record<string, string>;
}

interface CallResult {
	status: number;
	headers: Headers;
	text: string;
	// Tests index freely into reply bodies; a precise type per endpoint would add nothing here.
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	json: any;
}

let sandbox: Sandbox | undefined;

async function start(options?: SandboxOptions): Promise<Sandbox> {
	sandbox = await startSandbox(options);
	return sandbox;
}

afterEach(async () => {
	await sandbox?.close();
	sandbox = undefined;
});

async function call(sb: Sandbox, path: string, options: CallOptions = {}): Promise<CallResult> {
	const headers: Record<string, string> = { ...options.headers };
	const apiKey = options.apiKey === undefined ? sb.apiKey : options.apiKey;
	const organizationId =
		options.organizationId === undefined ? sb.organizationId : options.organizationId;
	if (apiKey !== null) headers['X-API-Key'] = apiKey;
	if (organizationId !== null) headers['X-Organization-ID'] = organizationId;
	let body: string | undefined;
	if (typeof options.body === 'string') body = options.body;
	else if (options.body !== undefined) {
		body = JSON.stringify(options.body);
		headers['Content-Type'] = 'application/json';
	}
	const response = await fetch(`${sb.url}${path}`, {
		method: options.method ?? 'GET',
		headers,
		body,
	});
	const text = await response.text();
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, headers: response.headers, text, json };
}

function expectError(
	result: CallResult,
	status: number,
	message: string,
	err?: string | RegExp,
): void {
	expect(result.status).toBe(status);
	expect(result.headers.get('content-type')).toMatch(/^application\/json/);
	expect(result.json).toEqual({ message, err: expect.any(String) });
	if (err !== undefined) expect(result.json.err).toMatch(err);
}

const every = [
	{ method: 'GET', path: PING },
	{ method: 'GET', path: CUSTOMERS },
	{ method: 'POST', path: ADD },
	{ method: 'GET', path: LIST_BUSINESSES },
	{ method: 'GET', path: '/api/business/biz_0000000000000000' },
];

describe('startup and seed data', () => {
	it('listens on 127.0.0.1 with the documented defaults', async () => {
		const sb = await start();
		expect(sb.url).toBe(`http://127.0.0.1:${sb.port}`);
		expect(sb.port).toBeGreaterThan(0);
		expect(sb.businesses).toHaveLength(3);
		expect(sb.customers).toHaveLength(0);
		expect(sb.requests).toEqual([]);
		for (const business of sb.businesses) {
			expect(business).toEqual({
				id: expect.stringMatching(/^biz_[0-9a-f]{16}$/),
				name: expect.any(String),
				email: expect.stringMatching(/@/),
				phone: expect.any(String),
				createdAt: expect.any(String),
			});
			expect(new Date(business.createdAt).toISOString()).toBe(business.createdAt);
		}
		expect(new Set(sb.businesses.map((b) => b.name)).size).toBe(3);
		expect(new Set([sb.apiKey, sb.readOnlyApiKey, sb.otherOrgApiKey]).size).toBe(3);
		expect(sb.organizationId).not.toBe(sb.otherOrganizationId);
	});

	it('seeds customers round-robin across businesses with unique cust_ ids', async () => {
		const sb = await start({ businesses: 4, customers: 50 });
		expect(sb.customers).toHaveLength(50);
		sb.customers.forEach((customer, i) => {
			expect(customer.id).toMatch(/^cust_[0-9a-f]{16}$/);
			expect(customer.businessId).toBe(sb.businesses[i % 4].id);
			expect(customer.firstName).toEqual(expect.any(String));
			expect(customer.lastName).toEqual(expect.any(String));
		});
		expect(new Set(sb.customers.map((c) => c.id)).size).toBe(50);
		// Optional fields are really optional in the seed.
		expect(sb.customers.some((c) => c.email === undefined)).toBe(true);
		expect(sb.customers.some((c) => c.phone === undefined)).toBe(true);
	});

	it('is deterministic: same options, same data and credentials', async () => {
		const a = await startSandbox({ businesses: 5, customers: 20 });
		const b = await startSandbox({ businesses: 5, customers: 20 });
		try {
			expect(b.businesses).toEqual(a.businesses);
			expect(b.customers).toEqual(a.customers);
			expect([b.apiKey, b.organizationId]).toEqual([a.apiKey, a.organizationId]);
			expect(b.port).not.toBe(a.port);
		} finally {
			await Promise.all([a.close(), b.close()]);
		}
	});

	it('keeps ids unique across many records and namespaces', () => {
		const businesses = generateBusinesses(30);
		expect(new Set(businesses.map((b) => b.name)).size).toBe(30);
		const customers = generateCustomers(20_000, businesses);
		expect(new Set(customers.map((c) => c.id)).size).toBe(20_000);
		expect(token(IdSpace.seededCustomer, 7)).not.toBe(token(IdSpace.addedCustomer, 7));
		expect(() => generateCustomers(1, [])).toThrow(RangeError);
	});

	it('rejects bad options', async () => {
		await expect(startSandbox({ businesses: -1 })).rejects.toThrow(RangeError);
		await expect(startSandbox({ rateLimit: { limit: 0, windowMs: 10 } })).rejects.toThrow(
			RangeError,
		);
		await expect(startSandbox({ businessListDefaultLimit: 0 })).rejects.toThrow(RangeError);
		await expect(startSandbox({ businessListShape: 'nope' as never })).rejects.toThrow(RangeError);
		await expect(startSandbox({ businesses: 0, customers: 1 })).rejects.toThrow(RangeError);
	});

	it('reports a port already in use', async () => {
		const sb = await start();
		await expect(startSandbox({ port: sb.port })).rejects.toThrow(/EADDRINUSE/);
	});
});

describe('authentication', () => {
	it.each(every)('$method $path: missing key -> 401', async ({ method, path }) => {
		const sb = await start();
		const result = await call(sb, path, { method, apiKey: null });
		expectError(result, 401, 'Unauthorized', 'Invalid or missing API key');
		expect(result.json.err).toBe('Invalid or missing API key');
	});

	it.each(every)('$method $path: unknown key -> 401', async ({ method, path }) => {
		const sb = await start();
		expectError(await call(sb, path, { method, apiKey: 'sk_wrong' }), 401, 'Unauthorized');
		expectError(await call(sb, path, { method, apiKey: '' }), 401, 'Unauthorized');
	});

	it.each(every)(
		'$method $path: missing or foreign organization -> 403',
		async ({ method, path }) => {
			const sb = await start();
			expectError(
				await call(sb, path, { method, organizationId: null }),
				403,
				'Forbidden',
				/X-Organization-ID/,
			);
			expectError(
				await call(sb, path, { method, organizationId: 'org_nope' }),
				403,
				'Forbidden',
				/org_nope/,
			);
			expectError(await call(sb, path, { method, apiKey: sb.otherOrgApiKey }), 403, 'Forbidden');
		},
	);

	it('the read-only key reads but cannot add customers', async () => {
		const sb = await start({ customers: 2 });
		const apiKey = sb.readOnlyApiKey;
		expect((await call(sb, PING, { apiKey })).status).toBe(200);
		expect((await call(sb, CUSTOMERS, { apiKey })).status).toBe(200);
		expect((await call(sb, LIST_BUSINESSES, { apiKey })).status).toBe(200);
		expect((await call(sb, `/api/business/${sb.businesses[0].id}`, { apiKey })).status).toBe(200);
		const body = { businessId: sb.businesses[0].id, firstName: 'Ann', lastName: 'Lee' };
		expectError(
			await call(sb, ADD, { method: 'POST', apiKey, body }),
			403,
			'Forbidden',
			/permission/,
		);
		expect(sb.customers).toHaveLength(2);
	});

	it('the other organization is valid with its own id but sees no data', async () => {
		const sb = await start({ customers: 5 });
		const auth = { apiKey: sb.otherOrgApiKey, organizationId: sb.otherOrganizationId };
		expect((await call(sb, PING, auth)).json.content).toEqual({
			organizationId: sb.otherOrganizationId,
		});
		const customers = await call(sb, CUSTOMERS, auth);
		expect(customers.json.content).toEqual({
			customers: [],
			pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
		});
		expect((await call(sb, LIST_BUSINESSES, auth)).json.content.businesses).toEqual([]);
		expectError(await call(sb, `/api/business/${sb.businesses[0].id}`, auth), 404, 'Not Found');
		const body = { businessId: sb.businesses[0].id, firstName: 'Ann', lastName: 'Lee' };
		expectError(await call(sb, ADD, { ...auth, method: 'POST', body }), 404, 'Not Found');
	});

	it('authenticates before routing', async () => {
		const sb = await start();
		expectError(await call(sb, '/nowhere', { apiKey: null }), 401, 'Unauthorized');
	});
});

describe('GET /api/public/v1/test-api-key', () => {
	it('confirms the key and names its organization', async () => {
		const sb = await start();
		const result = await call(sb, PING);
		expect(result.status).toBe(200);
		expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(result.json).toEqual({
			message: 'API key is valid',
			content: { organizationId: sb.organizationId },
		});
	});
});

describe('GET /api/public/v1/customers', () => {
	it('defaults to limit 20, offset 0', async () => {
		const sb = await start({ customers: 45 });
		const result = await call(sb, CUSTOMERS);
		expect(result.status).toBe(200);
		expect(result.json.message).toBe('Customers retrieved');
		expect(result.json.content.customers).toEqual(sb.customers.slice(0, 20));
		expect(result.json.content.pagination).toEqual({
			total: 45,
			limit: 20,
			offset: 0,
			hasMore: true,
		});
	});

	it('pages through everything in store order', async () => {
		const sb = await start({ customers: 45 });
		const seen: string[] = [];
		const pages: unknown[] = [];
		for (let offset = 0; ; offset += 20) {
			const { json } = await call(sb, `${CUSTOMERS}?limit=20&offset=${offset}`);
			pages.push(json.content.pagination);
			seen.push(...json.content.customers.map((c: { id: string }) => c.id));
			if (!json.content.pagination.hasMore) break;
		}
		expect(seen).toEqual(sb.customers.map((c) => c.id));
		expect(pages).toEqual([
			{ total: 45, limit: 20, offset: 0, hasMore: true },
			{ total: 45, limit: 20, offset: 20, hasMore: true },
			{ total: 45, limit: 20, offset: 40, hasMore: false },
		]);
	});

	it('accepts the bounds 1 and 100 and leading zeros', async () => {
		const sb = await start({ customers: 150 });
		expect((await call(sb, `${CUSTOMERS}?limit=1`)).json.content.customers).toHaveLength(1);
		const max = await call(sb, `${CUSTOMERS}?limit=100&offset=100`);
		expect(max.json.content.customers).toEqual(sb.customers.slice(100));
		expect(max.json.content.pagination).toEqual({
			total: 150,
			limit: 100,
			offset: 100,
			hasMore: false,
		});
		expect(
			(await call(sb, `${CUSTOMERS}?limit=05&offset=010`)).json.content.pagination,
		).toMatchObject({ limit: 5, offset: 10 });
	});

	it('answers an empty page with hasMore false past the end', async () => {
		const sb = await start({ customers: 5 });
		const { json } = await call(sb, `${CUSTOMERS}?offset=50`);
		expect(json.content).toEqual({
			customers: [],
			pagination: { total: 5, limit: 20, offset: 50, hasMore: false },
		});
		sb.seedCustomers(0);
		const empty = await call(sb, CUSTOMERS);
		expect(empty.json.content).toEqual({
			customers: [],
			pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
		});
	});

	it.each(['0', '101', '-1', '1.5', 'abc', '', '+5', ' 5', '1e2'])(
		'limit=%p -> 400',
		async (limit) => {
			const sb = await start();
			const result = await call(sb, `${CUSTOMERS}?limit=${encodeURIComponent(limit)}`);
			expectError(result, 400, 'Bad Request');
			expect(result.json.err).toBe('limit must be an integer from 1 to 100');
		},
	);

	it.each(['-1', '2.5', 'x', '', '99999999999999999999'])('offset=%p -> 400', async (offset) => {
		const sb = await start();
		const result = await call(sb, `${CUSTOMERS}?offset=${encodeURIComponent(offset)}`);
		expectError(result, 400, 'Bad Request');
		expect(result.json.err).toBe('offset must be an integer greater than or equal to 0');
	});

	it('uses the first value of a repeated parameter and ignores unknown ones', async () => {
		const sb = await start({ customers: 10 });
		const { json } = await call(sb, `${CUSTOMERS}?limit=2&limit=50&search=zzz&sort=desc`);
		expect(json.content.customers).toEqual(sb.customers.slice(0, 2));
	});

	it('reflects pushes to the live store between pages', async () => {
		const sb = await start({ customers: 3 });
		const first = await call(sb, `${CUSTOMERS}?limit=3`);
		expect(first.json.content.pagination.hasMore).toBe(false);
		sb.customers.push({
			id: 'cust_pushedbytest0001',
			businessId: sb.businesses[0].id,
			firstName: 'P',
			lastName: 'Q',
			createdAt: '2025-01-01T00:00:00.000Z',
		});
		const second = await call(sb, `${CUSTOMERS}?limit=3&offset=3`);
		expect(second.json.content.customers.map((c: { id: string }) => c.id)).toEqual([
			'cust_pushedbytest0001',
		]);
		expect(second.json.content.pagination.total).toBe(4);
	});
});

describe('POST /api/business/crm/customer/add', () => {
	it('adds a customer, returns 201 and lists it last', async () => {
		const sb = await start({ customers: 2 });
		const businessId = sb.businesses[1].id;
		const before = Date.now();
		const result = await call(sb, ADD, {
			method: 'POST',
			body: {
				businessId,
				firstName: 'Ann',
				lastName: 'Lee',
				email: 'ann@example.com',
				phone: '+44 20 7946 0000',
			},
		});
		expect(result.status).toBe(201);
		expect(result.json).toEqual({
			message: 'Customer added',
			content: {
				customer: {
					id: expect.stringMatching(/^cust_[0-9a-f]{16}$/),
					businessId,
					firstName: 'Ann',
					lastName: 'Lee',
					email: 'ann@example.com',
					phone: '+44 20 7946 0000',
					createdAt: expect.any(String),
				},
			},
		});
		const created = result.json.content.customer;
		expect(Date.parse(created.createdAt)).toBeGreaterThanOrEqual(before - 1000);
		expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
		expect(sb.customers).toHaveLength(3);
		expect(sb.customers[2]).toEqual(created);
		const list = await call(sb, CUSTOMERS);
		expect(list.json.content.customers[2]).toEqual(created);
		expect(list.json.content.pagination.total).toBe(3);
	});

	it('keeps extra scalar fields, trims names, drops nulls and ignores client id/createdAt', async () => {
		const sb = await start();
		const result = await call(sb, ADD, {
			method: 'POST',
			body: {
				id: 'cust_mine',
				createdAt: '1999-01-01T00:00:00.000Z',
				businessId: sb.businesses[0].id,
				firstName: '  Ann ',
				lastName: 'Lee\n',
				email: '',
				phone: null,
				notes: 'VIP',
				visits: 3,
				subscribed: false,
				middleName: null,
			},
		});
		expect(result.status).toBe(201);
		const customer = result.json.content.customer;
		expect(customer).toEqual({
			id: expect.stringMatching(/^cust_[0-9a-f]{16}$/),
			businessId: sb.businesses[0].id,
			firstName: 'Ann',
			lastName: 'Lee',
			notes: 'VIP',
			visits: 3,
			subscribed: false,
			createdAt: expect.any(String),
		});
		expect(customer.createdAt).not.toBe('1999-01-01T00:00:00.000Z');
	});

	it('gives every added customer a new id', async () => {
		const sb = await start({ customers: 10 });
		const body = { businessId: sb.businesses[0].id, firstName: 'A', lastName: 'B' };
		const results = await Promise.all(
			Array.from({ length: 20 }, () => call(sb, ADD, { method: 'POST', body })),
		);
		expect(results.every((r) => r.status === 201)).toBe(true);
		expect(new Set(sb.customers.map((c) => c.id)).size).toBe(30);
	});

	it.each([
		[{ firstName: 'A', lastName: 'B' }, 'businessId is required'],
		[{ businessId: 'BIZ', lastName: 'B' }, 'firstName is required'],
		[{ businessId: 'BIZ', firstName: 'A' }, 'lastName is required'],
		[{ businessId: 'BIZ', firstName: '   ', lastName: 'B' }, 'firstName is required'],
		[{ businessId: 'BIZ', firstName: 'A', lastName: null }, 'lastName is required'],
		[{ businessId: 'BIZ', firstName: 42, lastName: 'B' }, 'firstName must be a string'],
		[{ businessId: ['x'], firstName: 'A', lastName: 'B' }, 'businessId must be a string'],
		[
			{ businessId: 'BIZ', firstName: 'A', lastName: 'B', email: 'not-an-email' },
			'email must be a valid email address',
		],
		[{ businessId: 'BIZ', firstName: 'A', lastName: 'B', email: 5 }, 'email must be a string'],
		[
			{ businessId: 'BIZ', firstName: 'A', lastName: 'B', phone: 5550100 },
			'phone must be a string',
		],
		[
			{ businessId: 'BIZ', firstName: 'A', lastName: 'B', address: { city: 'X' } },
			'address must be a string, number or boolean',
		],
		[
			{ businessId: 'BIZ', firstName: 'A', lastName: 'B', tags: ['a'] },
			'tags must be a string, number or boolean',
		],
	])('%j -> 400 %p', async (template, err) => {
		const sb = await start();
		const body = JSON.parse(
			JSON.stringify(template).replace(/"BIZ"/g, JSON.stringify(sb.businesses[0].id)),
		);
		const result = await call(sb, ADD, { method: 'POST', body });
		expectError(result, 400, 'Bad Request');
		expect(result.json.err).toBe(err);
		expect(sb.customers).toHaveLength(0);
	});

	it.each([
		['', 'Request body is required'],
		['{"firstName": ', 'Request body is not valid JSON'],
		['[1,2]', 'Request body must be a JSON object'],
		['null', 'Request body must be a JSON object'],
		['"text"', 'Request body must be a JSON object'],
	])('body %p -> 400 %p', async (body, err) => {
		const sb = await start();
		const result = await call(sb, ADD, {
			method: 'POST',
			body,
			headers: { 'Content-Type': 'application/json' },
		});
		expectError(result, 400, 'Bad Request');
		expect(result.json.err).toBe(err);
	});

	it('unknown business -> 404', async () => {
		const sb = await start();
		const result = await call(sb, ADD, {
			method: 'POST',
			body: { businessId: 'biz_missing', firstName: 'A', lastName: 'B' },
		});
		expectError(result, 404, 'Not Found');
		expect(result.json.err).toBe('Business biz_missing not found');
		expect(sb.customers).toHaveLength(0);
	});

	it('a body over 1 MiB -> 413', async () => {
		const sb = await start();
		const body = {
			businessId: sb.businesses[0].id,
			firstName: 'A',
			lastName: 'B',
			notes: 'x'.repeat(1024 * 1024),
		};
		expectError(await call(sb, ADD, { method: 'POST', body }), 413, 'Payload Too Large');
	});
});

describe('GET /api/business/list/all', () => {
	it('paginated (default): limit/offset like customers, default limit 20', async () => {
		const sb = await start({ businesses: 25 });
		const first = await call(sb, LIST_BUSINESSES);
		expect(first.status).toBe(200);
		expect(first.json).toEqual({
			message: 'Businesses retrieved',
			content: {
				businesses: sb.businesses.slice(0, 20),
				pagination: { total: 25, limit: 20, offset: 0, hasMore: true },
			},
		});
		const second = await call(sb, `${LIST_BUSINESSES}?limit=20&offset=20`);
		expect(second.json.content.businesses).toEqual(sb.businesses.slice(20));
		expect(second.json.content.pagination.hasMore).toBe(false);
		expectError(
			await call(sb, `${LIST_BUSINESSES}?limit=0`),
			400,
			'Bad Request',
			'limit must be an integer from 1 to 100',
		);
		expectError(await call(sb, `${LIST_BUSINESSES}?offset=-3`), 400, 'Bad Request', /^offset/);
		// No search support: the parameter is ignored, not applied.
		expect(
			(await call(sb, `${LIST_BUSINESSES}?search=${encodeURIComponent(sb.businesses[3].name)}`))
				.json.content.businesses,
		).toHaveLength(20);
	});

	it('honours businessListDefaultLimit', async () => {
		const sb = await start({ businesses: 8, businessListDefaultLimit: 5 });
		const { json } = await call(sb, LIST_BUSINESSES);
		expect(json.content.pagination).toEqual({ total: 8, limit: 5, offset: 0, hasMore: true });
	});

	it('serves every configured shape, unpaginated shapes ignoring limit/offset', async () => {
		const sb = await start({ businesses: 4 });
		const all = sb.businesses;
		const message = 'Businesses retrieved';
		const expected = {
			array: all,
			'content-array': { message, content: all },
			'content-businesses': { message, content: { businesses: all } },
			'content-items': { message, content: { items: all } },
			data: { data: all },
		} as const;
		for (const [shape, body] of Object.entries(expected)) {
			sb.setBusinessListShape(shape as keyof typeof expected);
			const result = await call(sb, `${LIST_BUSINESSES}?limit=1&offset=-1`);
			expect([shape, result.status, result.json]).toEqual([shape, 200, body]);
		}
		sb.setBusinessListShape('paginated');
		expect((await call(sb, LIST_BUSINESSES)).json.content.pagination.total).toBe(4);
		expect(() => sb.setBusinessListShape('bogus' as never)).toThrow(RangeError);
	});

	it('takes its shape from the options', async () => {
		const sb = await start({ businessListShape: 'data' });
		expect((await call(sb, LIST_BUSINESSES)).json).toEqual({ data: sb.businesses });
	});
});

describe('GET /api/business/{businessId}', () => {
	it('returns the business', async () => {
		const sb = await start();
		const business = sb.businesses[2];
		const result = await call(sb, `/api/business/${business.id}`);
		expect(result.status).toBe(200);
		expect(result.json).toEqual({ message: 'Business retrieved', content: { business } });
	});

	it('percent-decodes the id', async () => {
		const sb = await start();
		const odd = {
			id: 'biz/with space&ü',
			name: 'Odd Id',
			email: 'odd@example.com',
			phone: '1',
			createdAt: '2024-01-01T00:00:00.000Z',
		};
		sb.businesses.push(odd);
		const result = await call(sb, `/api/business/${encodeURIComponent(odd.id)}`);
		expect(result.json.content.business).toEqual(odd);
		expectError(await call(sb, '/api/business/%E0%A4%A'), 400, 'Bad Request', /percent-encoding/);
	});

	it('unknown id -> 404 naming the id', async () => {
		const sb = await start();
		const result = await call(sb, '/api/business/biz_nope');
		expectError(result, 404, 'Not Found');
		expect(result.json.err).toBe('Business biz_nope not found');
		expectError(await call(sb, '/api/business/list'), 404, 'Not Found', 'Business list not found');
	});

	it('extra segments and trailing slashes -> 404', async () => {
		const sb = await start();
		const id = sb.businesses[0].id;
		expectError(await call(sb, `/api/business/${id}/`), 404, 'Not Found');
		expectError(await call(sb, `/api/business/${id}/customers`), 404, 'Not Found');
	});
});

describe('routing', () => {
	it.each([
		'/',
		'/api',
		'/api/public/v1',
		'/api/public/v1/customers/',
		'/api/public/v1/business/list/all',
		'/api/public/v1/business/crm/customer/add',
		'/api/test-api-key',
		'/api/customers',
	])('%s -> 404 JSON', async (path) => {
		const sb = await start();
		expectError(await call(sb, path), 404, 'Not Found', /not found/);
	});

	it.each([
		['POST', PING, 'GET'],
		['POST', CUSTOMERS, 'GET'],
		['DELETE', CUSTOMERS, 'GET'],
		['GET', ADD, 'POST'],
		['PUT', ADD, 'POST'],
		['POST', LIST_BUSINESSES, 'GET'],
		['PATCH', '/api/business/biz_x', 'GET'],
	])('%s %s -> 405 Allow: %s', async (method, path, allow) => {
		const sb = await start();
		const result = await call(sb, path, { method });
		expectError(result, 405, 'Method Not Allowed');
		expect(result.headers.get('allow')).toBe(allow);
	});
});

describe('rate limit', () => {
	it('is off by default', async () => {
		const sb = await start();
		const statuses = await Promise.all(
			Array.from({ length: 50 }, () => call(sb, PING).then((r) => r.status)),
		);
		expect(new Set(statuses)).toEqual(new Set([200]));
	});

	it('answers 429 with retryAfter and Retry-After past the limit, per key', async () => {
		const sb = await start({ rateLimit: { limit: 3, windowMs: 60_000 } });
		for (let i = 0; i < 3; i++) expect((await call(sb, CUSTOMERS)).status).toBe(200);
		const limited = await call(sb, CUSTOMERS);
		expect(limited.status).toBe(429);
		expect(limited.json).toEqual({
			message: 'Too Many Requests',
			err: expect.any(String),
			retryAfter: expect.any(Number),
		});
		expect(limited.json.retryAfter).toBeGreaterThanOrEqual(59);
		expect(limited.json.retryAfter).toBeLessThanOrEqual(60);
		expect(Number.isInteger(limited.json.retryAfter)).toBe(true);
		expect(limited.headers.get('retry-after')).toBe(String(limited.json.retryAfter));
		// The window is per key: another key of the same organization still has its quota.
		expect((await call(sb, CUSTOMERS, { apiKey: sb.readOnlyApiKey })).status).toBe(200);
		// Unknown keys are turned away by auth before they can touch anyone's quota.
		expect((await call(sb, CUSTOMERS, { apiKey: 'sk_wrong' })).status).toBe(401);
	});

	it('resets when the window ends, with retryAfter at least 1', async () => {
		const sb = await start({ rateLimit: { limit: 2, windowMs: 300 } });
		await call(sb, PING);
		await call(sb, PING);
		const limited = await call(sb, PING);
		expect(limited.status).toBe(429);
		expect(limited.json.retryAfter).toBe(1);
		await new Promise((resolve) => setTimeout(resolve, 350));
		expect((await call(sb, PING)).status).toBe(200);
	});
});

describe('fault switches', () => {
	it('rateLimitBurst: 429 with retryAfter in the body only, by default', async () => {
		const sb = await start();
		sb.setFaults({ rateLimitBurst: { count: 2 } });
		const first = await call(sb, CUSTOMERS);
		expect(first.status).toBe(429);
		expect(first.json).toEqual({
			message: 'Too Many Requests',
			err: 'Rate limit exceeded',
			retryAfter: 1,
		});
		expect(first.headers.get('retry-after')).toBeNull();
		expect((await call(sb, CUSTOMERS)).status).toBe(429);
		expect((await call(sb, CUSTOMERS)).status).toBe(200);
	});

	it('rateLimitBurst: header and body value options', async () => {
		const sb = await start();
		sb.setFaults({ rateLimitBurst: { retryAfter: 7, retryAfterHeader: true } });
		const withHeader = await call(sb, PING);
		expect(withHeader.json.retryAfter).toBe(7);
		expect(withHeader.headers.get('retry-after')).toBe('7');
		sb.setFaults({ rateLimitBurst: { omitRetryAfter: true } });
		const bare = await call(sb, PING);
		expect(bare.status).toBe(429);
		expect(bare.json).toEqual({ message: 'Too Many Requests', err: 'Rate limit exceeded' });
		expect(bare.headers.get('retry-after')).toBeNull();
	});

	it('rules match by path prefix and method, after and count', async () => {
		const sb = await start();
		sb.setFaults({
			serverError: { path: '/api/public/v1/cust', method: 'get', after: 1, count: 2 },
		});
		expect((await call(sb, PING)).status).toBe(200); // other path: not counted
		expect((await call(sb, CUSTOMERS)).status).toBe(200); // skipped (after: 1)
		expect((await call(sb, CUSTOMERS, { method: 'POST' })).status).toBe(405); // other method
		expect((await call(sb, `${CUSTOMERS}?offset=20`)).status).toBe(500);
		expect((await call(sb, CUSTOMERS)).status).toBe(500);
		expect((await call(sb, CUSTOMERS)).status).toBe(200); // count used up
	});

	it('serverError: default 500 and a chosen status, JSON body', async () => {
		const sb = await start();
		sb.setFaults({ serverError: { count: 1 } });
		expectError(await call(sb, PING), 500, 'Internal Server Error', 'Simulated server fault');
		sb.setFaults({ serverError: { status: 503 } });
		expectError(await call(sb, PING), 503, 'Service Unavailable');
	});

	it('faults come before auth', async () => {
		const sb = await start();
		sb.setFaults({ serverError: {} });
		expect((await call(sb, PING, { apiKey: null })).status).toBe(500);
	});

	it('slow: delays, then answers normally', async () => {
		const sb = await start();
		sb.setFaults({ slow: { delayMs: 300, count: 1 } });
		const started = Date.now();
		expect((await call(sb, PING)).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(280);
		const again = Date.now();
		await call(sb, PING);
		expect(Date.now() - again).toBeLessThan(250);
	});

	it('notJson: 200 with an HTML body', async () => {
		const sb = await start();
		sb.setFaults({ notJson: {} });
		const result = await call(sb, CUSTOMERS);
		expect(result.status).toBe(200);
		expect(result.headers.get('content-type')).toMatch(/^text\/html/);
		expect(result.text).toMatch(/^<!DOCTYPE html>/);
		expect(result.json).toBeUndefined();
	});

	it('emptyBody: 200 with nothing in it', async () => {
		const sb = await start();
		sb.setFaults({ emptyBody: {} });
		const result = await call(sb, CUSTOMERS);
		expect(result.status).toBe(200);
		expect(result.text).toBe('');
		expect(result.headers.get('content-length')).toBe('0');
	});

	it('dropConnection: the socket closes without an answer, logged with status 0', async () => {
		const sb = await start();
		sb.setFaults({ dropConnection: { count: 1 } });
		await expect(call(sb, CUSTOMERS)).rejects.toThrow();
		expect(sb.requests.map((r) => r.status)).toEqual([0]);
		expect((await call(sb, CUSTOMERS)).status).toBe(200);
	});

	it('checks rules in order: dropConnection, slow, rateLimitBurst, serverError, notJson, emptyBody', async () => {
		const sb = await start();
		sb.setFaults({
			dropConnection: { count: 1 },
			slow: { delayMs: 200, after: 1, count: 1 },
			rateLimitBurst: { count: 2 },
			serverError: { count: 3 },
			notJson: { count: 4 },
			emptyBody: { count: 5 },
		});
		await expect(call(sb, PING)).rejects.toThrow();
		const started = Date.now();
		expect((await call(sb, PING)).status).toBe(429); // slow, then the burst
		expect(Date.now() - started).toBeGreaterThanOrEqual(180);
		expect((await call(sb, PING)).status).toBe(500);
		expect((await call(sb, PING)).headers.get('content-type')).toMatch(/html/);
		expect((await call(sb, PING)).text).toBe('');
		expect((await call(sb, PING)).status).toBe(200);
		expect(sb.requests.map((r) => r.status)).toEqual([0, 429, 500, 200, 200, 200]);
	});

	it('setFaults replaces everything and restarts counters; resetFaults clears', async () => {
		const sb = await start();
		sb.setFaults({ serverError: { count: 1 }, notJson: { after: 5 } });
		expect((await call(sb, PING)).status).toBe(500);
		sb.setFaults({ serverError: { count: 1 } });
		expect((await call(sb, PING)).status).toBe(500); // counter restarted
		sb.setFaults({ emptyBody: {} });
		expect((await call(sb, PING)).text).toBe('');
		sb.resetFaults();
		expect((await call(sb, PING)).status).toBe(200);
	});

	it('hasMoreForever: hasMore stays true and pages past the end are empty', async () => {
		const sb = await start({ customers: 5 });
		sb.setFaults({ hasMoreForever: true });
		const first = await call(sb, `${CUSTOMERS}?limit=5`);
		expect(first.json.content.customers).toHaveLength(5);
		expect(first.json.content.pagination).toEqual({ total: 5, limit: 5, offset: 0, hasMore: true });
		const past = await call(sb, `${CUSTOMERS}?limit=5&offset=500`);
		expect(past.json.content.customers).toEqual([]);
		expect(past.json.content.pagination.hasMore).toBe(true);
	});

	it('emptyPagesWithHasMore: every page empty, hasMore true', async () => {
		const sb = await start({ customers: 5 });
		sb.setFaults({ emptyPagesWithHasMore: true });
		const { json } = await call(sb, CUSTOMERS);
		expect(json.content).toEqual({
			customers: [],
			pagination: { total: 5, limit: 20, offset: 0, hasMore: true },
		});
	});

	it('totalOverride: reports the given total, hasMore from reality', async () => {
		const sb = await start({ customers: 5 });
		sb.setFaults({ totalOverride: 1000 });
		const { json } = await call(sb, CUSTOMERS);
		expect(json.content.customers).toHaveLength(5);
		expect(json.content.pagination).toEqual({ total: 1000, limit: 20, offset: 0, hasMore: false });
	});

	it('omitTotal, offsetOverride and pageSizeCap change the pagination object as named', async () => {
		const sb = await start({ customers: 50 });
		sb.setFaults({ omitTotal: true, offsetOverride: -7, pageSizeCap: 10 });
		const { json } = await call(sb, `${CUSTOMERS}?limit=100&offset=20`);
		expect(json.content.customers.map((c: { id: string }) => c.id)).toEqual(
			sb.customers.slice(20, 30).map((c) => c.id),
		);
		expect(json.content.pagination).toEqual({ limit: 10, offset: -7, hasMore: true });
	});

	it('a rule with query fires only for requests with those values', async () => {
		const sb = await start({ customers: 5 });
		sb.setFaults({ serverError: { path: CUSTOMERS, query: { offset: '3' } } });
		expect((await call(sb, `${CUSTOMERS}?offset=2`)).status).toBe(200);
		expect((await call(sb, `${CUSTOMERS}?offset=3`)).status).toBe(500);
		expect((await call(sb, CUSTOMERS)).status).toBe(200);
	});

	it('slow.delayMsByOffset delays chosen offsets, and inFlight/maxInFlight count open requests', async () => {
		const sb = await start({ customers: 5 });
		sb.setFaults({ slow: { path: CUSTOMERS, delayMs: 0, delayMsByOffset: { '1': 300 } } });
		const finished: string[] = [];
		await Promise.all(
			['1', '2'].map(async (offset) => {
				await call(sb, `${CUSTOMERS}?offset=${offset}`);
				finished.push(offset);
			}),
		);
		expect(finished).toEqual(['2', '1']);
		expect(sb.maxInFlight).toBe(2);
		expect(sb.inFlight).toBe(0);
		sb.clearLog();
		expect(sb.maxInFlight).toBe(0);
	});
});

describe('request log', () => {
	it('records method, path, query, lower-cased headers, parsed body and status', async () => {
		const sb = await start();
		const body = { businessId: sb.businesses[0].id, firstName: 'Ann', lastName: 'Lee' };
		await call(sb, `${CUSTOMERS}?limit=5&offset=10`, { headers: { 'X-Custom-Thing': 'yes' } });
		await call(sb, ADD, { method: 'POST', body });
		expect(sb.requests).toEqual([
			{
				method: 'GET',
				path: CUSTOMERS,
				query: { limit: '5', offset: '10' },
				headers: expect.objectContaining({
					'x-api-key': sb.apiKey,
					'x-organization-id': sb.organizationId,
					'x-custom-thing': 'yes',
					host: `127.0.0.1:${sb.port}`,
				}),
				body: undefined,
				status: 200,
			},
			{
				method: 'POST',
				path: ADD,
				query: {},
				headers: expect.objectContaining({ 'content-type': 'application/json' }),
				body,
				status: 201,
			},
		]);
	});

	it('keeps a non-JSON body as text and logs failures with their status', async () => {
		const sb = await start();
		await call(sb, ADD, { method: 'POST', body: 'not json' });
		await call(sb, CUSTOMERS, { apiKey: null });
		await call(sb, `${CUSTOMERS}?limit=0`);
		await call(sb, '/api/business/biz_nope');
		expect(sb.requests.map((r) => [r.method, r.status, r.body])).toEqual([
			['POST', 400, 'not json'],
			['GET', 401, undefined],
			['GET', 400, undefined],
			['GET', 404, undefined],
		]);
		expect(sb.requests[1].headers['x-api-key']).toBeUndefined();
	});

	it('clearLog empties the same array', async () => {
		const sb = await start();
		const log = sb.requests;
		await call(sb, PING);
		sb.clearLog();
		expect(log).toHaveLength(0);
		expect(sb.requests).toBe(log);
		await call(sb, PING);
		expect(log).toHaveLength(1);
	});

	it('log: false keeps nothing', async () => {
		const sb = await start({ log: false });
		await call(sb, PING);
		await call(sb, '/nowhere');
		expect(sb.requests).toEqual([]);
	});

	it('onRequest sees every request before it is answered and can change the store mid-read', async () => {
		const sb = await start({ customers: 4 });
		const seen: string[] = [];
		let inserted = false;
		sb.onRequest = (entry) => {
			seen.push(`${entry.method} ${entry.path} ${entry.status}`);
			if (entry.query.offset === '2' && !inserted) {
				inserted = true;
				sb.customers.splice(0, 0, { ...sb.customers[3], id: 'cust_insertedfront01' });
			}
		};
		const page1 = await call(sb, `${CUSTOMERS}?limit=2&offset=0`);
		const page2 = await call(sb, `${CUSTOMERS}?limit=2&offset=2`);
		expect(seen).toEqual([`GET ${CUSTOMERS} 0`, `GET ${CUSTOMERS} 0`]);
		// The insertion at the front happened before page 2 was cut: item 1 shows up again.
		expect(page2.json.content.customers[0].id).toBe(page1.json.content.customers[1].id);
		expect(page2.json.content.pagination.total).toBe(5);
	});

	it('onRequest may be async and is awaited; a throwing hook yields a 500', async () => {
		const sb = await start();
		sb.onRequest = async () => {
			await new Promise((resolve) => setTimeout(resolve, 100));
		};
		const started = Date.now();
		expect((await call(sb, PING)).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
		sb.onRequest = () => {
			throw new Error('hook broke');
		};
		expectError(await call(sb, PING), 500, 'Internal Server Error', /hook broke/);
	});
});

describe('store helpers and shutdown', () => {
	it('seedCustomers replaces the customers in place', async () => {
		const sb = await start({ businesses: 2, customers: 3 });
		const store = sb.customers;
		sb.seedCustomers(7);
		expect(sb.customers).toBe(store);
		expect(store).toHaveLength(7);
		expect((await call(sb, CUSTOMERS)).json.content.pagination.total).toBe(7);
	});

	it('close() does not wait for slow requests or idle keep-alive sockets', async () => {
		const sb = await start();
		await call(sb, PING); // leaves a keep-alive socket open
		sb.setFaults({ slow: { delayMs: 30_000 } });
		const pending = call(sb, PING);
		const settled = pending.then(
			() => 'answered',
			() => 'failed',
		);
		await new Promise((resolve) => setTimeout(resolve, 100));
		const started = Date.now();
		await sb.close();
		expect(Date.now() - started).toBeLessThan(1000);
		expect(await settled).toBe('failed');
		await sb.close(); // idempotent
		await expect(fetch(`${sb.url}${PING}`)).rejects.toThrow();
	});
});
