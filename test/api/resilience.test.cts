/**
 * Fault injection: rate limits, server faults, dropped connections, timeouts, refused
 * connections, unusable replies and pagination that would never end. Each test asserts the
 * requests the sandbox saw (method, path, offsets, statuses) and the exact error the user gets.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sleep, type INodeParameters } from 'n8n-workflow';
import {
	startSandbox,
	type Faults,
	type Sandbox,
	type SandboxCustomer,
} from '../sandbox/server.cjs';
import { runNode, type CrmCredentials, type RunResult } from '../helpers/harness.cjs';
import { byId, closedPort, credentialsFor, requestsTo } from '../helpers/fixtures.cjs';
import { clock, useFastClock } from '../helpers/clock.cjs';
import { KEY_HELP } from '../../nodes/BusinessCrm/errors/errors';
import {
	MAYBE_CREATED,
	PROBABLY_CREATED,
} from '../../nodes/BusinessCrm/resources/customer/create/request';

const CUSTOMERS = '/api/public/v1/customers';
const ADD = '/api/business/crm/customer/add';
const BUSINESS_LIST = '/api/business/list/all';

const SERVER_ERROR_HINT = 'The API had a server error.';
const TIMEOUT_HINT =
	"The Business CRM API did not answer in time. Try again later, or raise the timeout on this node's Settings tab (Request Options › Timeout).";
const DROPPED_HINT = 'The API or a proxy dropped the connection. Try again later.';
const REFUSED_HINT =
	'Nothing answers at the Base URL of the Business CRM credential. Check the address and port, and that the API is up.';
/** The advice names the one limit that stopped the retries. */
const RAISE_LIMITS = (raise = 'Raise Max Retries') =>
	`${raise} under Options on the Parameters tab, or space the input items out on the node's Settings tab (Request Options › Batching).`;
/** Batching spaces out input items, not the pages of one Get Many, so it is not offered there. */
const RAISE_LIMITS_FOR_PAGES = 'Raise Max Retries under Options on the Parameters tab.';
/** A credential the sandbox does not know. */
const UNKNOWN_CREDENTIAL = ['revoked', 'credential', '0001'].join('-');
const FAULT_HTML_START =
	'<!DOCTYPE html> <html><head><title>Sign in</title></head><body><h1>Please sign in</h1><p>This page is serv'.slice(
		0,
		80,
	);

/**
 * The json of a Continue On Fail error item: the message, then the advice, under `error` alone
 * (n8n keeps only an item's `error` text when it routes or shows error items).
 */
const errorJson = (message: string, description: string) => ({
	error: `${message}. ${description}`,
});

type NodeError = NonNullable<RunResult['error']> & { httpCode?: string | null };

/** A server that answers every request with one fixed reply. */
async function answeringServer(
	status: number,
	/** undefined sends no content-type header. */
	type: string | undefined,
	body: string,
): Promise<{ url: string; close: () => Promise<void> }> {
	const server = createHttpServer((_req, res) => {
		res.writeHead(status, type === undefined ? {} : { 'content-type': type });
		res.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * An HTTPS server on 127.0.0.1 with a self-signed certificate made by the machine's openssl for
 * this run; it answers Business Get and counts the requests it gets.
 */
async function selfSignedServer(): Promise<{
	url: string;
	requests: number;
	close: () => Promise<void>;
}> {
	const folder = mkdtempSync(join(tmpdir(), 'crm-tls-'));
	execFileSync(
		'openssl',
		[
			'req',
			'-x509',
			'-newkey',
			'ec',
			'-pkeyopt',
			'ec_paramgen_curve:prime256v1',
			'-nodes',
			'-keyout',
			join(folder, 'key.pem'),
			'-out',
			join(folder, 'cert.pem'),
			'-days',
			'1',
			'-subj',
			'/CN=127.0.0.1',
			'-addext',
			'subjectAltName=IP:127.0.0.1',
		],
		{ stdio: 'ignore' },
	);
	const state = { url: '', requests: 0, close: async () => {} };
	const server = createHttpsServer(
		{ key: readFileSync(join(folder, 'key.pem')), cert: readFileSync(join(folder, 'cert.pem')) },
		(_req, res) => {
			state.requests++;
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ content: { business: { id: 'biz_1', name: 'TLS Bakery' } } }));
		},
	);
	rmSync(folder, { recursive: true });
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
	state.close = async () => await new Promise<void>((resolve) => server.close(() => resolve()));
	return state;
}

// n8n-core's own copy of @n8n/di (the top-level one is another version, with another container).
const { Container } = jest.requireActual<typeof import('@n8n/di')>(
	require.resolve('@n8n/di', { paths: [dirname(require.resolve('n8n-core/package.json'))] }),
);

/**
 * Runs `use` with n8n-core's services created afresh under N8N_SSRF_PROTECTION_ENABLED=true, as
 * an n8n administrator would start n8n. Only n8n's DI container is reset, not the module registry:
 * reloading the node's modules inside a test would tie its description literals to this test, and
 * the mutation run would then try them against this test alone.
 */
async function withSsrfProtection<T>(use: () => Promise<T>): Promise<T> {
	process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
	Container.reset();
	try {
		return await use();
	} finally {
		delete process.env.N8N_SSRF_PROTECTION_ENABLED;
		Container.reset();
	}
}

function customer(id: string, businessId: string): SandboxCustomer {
	return {
		id,
		businessId,
		firstName: 'Late',
		lastName: 'Arrival',
		createdAt: new Date().toISOString(),
	};
}

describe('Resilience', () => {
	let sandbox: Sandbox;
	/** When each request reached the sandbox, by path, in arrival order. */
	let arrivals: Array<{ path: string; at: number }>;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 45 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.clearLog();
		sandbox.resetFaults();
		sandbox.seedCustomers(0);
		arrivals = [];
		sandbox.onRequest = (entry) => {
			// On the package's clock, which the retry blocks below run 20 times faster.
			arrivals.push({ path: entry.path, at: clock.now() });
		};
	});
	afterEach(() => {
		sandbox.onRequest = undefined;
	});

	const run = (
		parameters: INodeParameters,
		options: {
			items?: Array<Record<string, unknown>>;
			onError?: 'continueRegularOutput';
			baseUrl?: string;
		} = {},
	): Promise<RunResult> =>
		runNode({
			credentials: {
				...credentialsFor(sandbox),
				...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
			},
			parameters,
			items: options.items as never,
			onError: options.onError,
		});

	const getBusiness = (extra: INodeParameters = {}, id = sandbox.businesses[0].id) =>
		run({ resource: 'business', operation: 'get', businessId: byId(id), ...extra });
	const getCustomers = (extra: INodeParameters = {}) =>
		run({ resource: 'customer', operation: 'getAll', returnAll: true, ...extra });
	const createCustomer = (extra: INodeParameters = {}, baseUrl?: string) =>
		run(
			{
				resource: 'customer',
				operation: 'create',
				businessId: byId(sandbox.businesses[0].id),
				firstName: 'Ada',
				lastName: 'Lovelace',
				...extra,
			},
			{ baseUrl },
		);

	/** [method, path, status] of every request, in arrival order. */
	const seen = () =>
		sandbox.requests.map((request) => [request.method, request.path, request.status]);
	/**
	 * [offset, status] of every customer-list request, by offset; the tries of one page in arrival
	 * order. Pages read at once arrive in any order.
	 */
	const pages = () =>
		requestsTo(sandbox, CUSTOMERS)
			.map((request) => [Number(request.query.offset), request.status])
			.sort((a, b) => a[0] - b[0]);
	/** Milliseconds between consecutive requests to `path`. */
	const gaps = (path: string) => {
		const times = arrivals.filter((arrival) => arrival.path === path).map(({ at }) => at);
		return times.slice(1).map((at, index) => at - times[index]);
	};
	const businessPath = () => `/api/business/${sandbox.businesses[0].id}`;

	const expectNodeApiError = (
		error: RunResult['error'],
		expected: { message: string; description: string; httpCode?: string },
	) => {
		const nodeError = error as NodeError | undefined;
		expect(nodeError?.name).toBe('NodeApiError');
		expect(nodeError?.message).toBe(expected.message);
		expect(nodeError?.description).toBe(expected.description);
		if (expected.httpCode !== undefined) expect(nodeError?.httpCode).toBe(expected.httpCode);
		expect(nodeError?.context.itemIndex).toBe(0);
	};

	describe('429: waits as the API asks, within Max Retries and Max Total Wait', () => {
		const time = useFastClock(20);
		it('waits the retryAfter of the body (seconds, here 0.2) before each retry', async () => {
			// Bounded from above: at 20 times, 45 ms of a busy machine's delay would pass the bound.
			time.only(4);
			sandbox.setFaults({ rateLimitBurst: { count: 2, retryAfter: 0.2 } });
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: sandbox.businesses[0], pairedItem: { item: 0 } }]);
			expect(seen()).toEqual([
				['GET', businessPath(), 429],
				['GET', businessPath(), 429],
				['GET', businessPath(), 200],
			]);
			// 0.2 s each: not the 1 s, 2 s of the fallback backoff.
			expect(gaps(businessPath())).toHaveLength(2);
			for (const gap of gaps(businessPath())) {
				expect(gap).toBeGreaterThanOrEqual(190);
				expect(gap).toBeLessThan(900);
			}
		});

		it('waits the Retry-After header when the body has no retryAfter', async () => {
			// Bounded from above: at 20 times, 45 ms of a busy machine's delay would pass the bound.
			time.only(4);
			sandbox.setFaults({
				rateLimitBurst: { count: 2, retryAfter: 1, retryAfterHeader: true, omitRetryAfter: true },
			});
			const { error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(seen().map(([, , status]) => status)).toEqual([429, 429, 200]);
			// 1 s both times; the backoff would have waited 2 s the second time.
			const [first, second] = gaps(businessPath());
			expect(first).toBeGreaterThanOrEqual(990);
			expect(second).toBeGreaterThanOrEqual(990);
			expect(second).toBeLessThan(1900);
		});

		it('backs off 1 s, then 2 s when the reply says nothing about waiting', async () => {
			// Bounded from above: at 20 times, 45 ms of a busy machine's delay would pass the bound.
			time.only(4);
			sandbox.setFaults({ rateLimitBurst: { count: 2, omitRetryAfter: true } });
			const { error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(seen().map(([, , status]) => status)).toEqual([429, 429, 200]);
			const [first, second] = gaps(businessPath());
			expect(first).toBeGreaterThanOrEqual(990);
			expect(first).toBeLessThan(1900);
			expect(second).toBeGreaterThanOrEqual(1990);
			expect(second).toBeLessThan(2900);
		});

		it('gives up after Max Retries with the API words and the wait it asked for', async () => {
			sandbox.setFaults({ rateLimitBurst: { retryAfter: 1 } });
			const { items, error } = await getBusiness({ options: { maxRetries: 1 } });
			expect(items).toEqual([]);
			expect(seen()).toEqual([
				['GET', businessPath(), 429],
				['GET', businessPath(), 429],
			]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 429 "Too Many Requests: Rate limit exceeded"',
				description: `The API rate limit was hit and it asked to wait 1 s. Gave up after 1 retry and 1 s of waiting (limits: 1 retry, 120 s). ${RAISE_LIMITS()}`,
				httpCode: '429',
			});
		});

		it('gives up when the next wait would pass Max Total Wait', async () => {
			sandbox.setFaults({ rateLimitBurst: { retryAfter: 1 } });
			const { error } = await getBusiness({ options: { maxRetries: 5, maxRetryWait: 2 } });
			expect(seen().map(([, , status]) => status)).toEqual([429, 429, 429]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 429 "Too Many Requests: Rate limit exceeded"',
				description: `The API rate limit was hit and it asked to wait 1 s. Gave up after 2 retries and 2 s of waiting (limits: 5 retries, 2 s). ${RAISE_LIMITS('Raise Max Total Wait to at least 3 s')}`,
				httpCode: '429',
			});
		});

		it('does not wait at all when the API asks for more than Max Total Wait (header only)', async () => {
			sandbox.setFaults({
				rateLimitBurst: { retryAfter: 30, retryAfterHeader: true, omitRetryAfter: true },
			});
			const started = Date.now();
			const { error } = await getBusiness({ options: { maxRetryWait: 10 } });
			expect(Date.now() - started).toBeLessThan(2000);
			expect(seen()).toEqual([['GET', businessPath(), 429]]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 429 "Too Many Requests: Rate limit exceeded"',
				description: `The API rate limit was hit and it asked to wait 30 s. Gave up after 0 retries and 0 s of waiting (limits: 5 retries, 10 s). ${RAISE_LIMITS('Raise Max Total Wait to at least 30 s')}`,
				httpCode: '429',
			});
		});

		it('sends once with Max Retries 0, and says when the API did not say how long to wait', async () => {
			sandbox.setFaults({ rateLimitBurst: { omitRetryAfter: true } });
			const { error } = await getBusiness({ options: { maxRetries: 0 } });
			expect(seen()).toEqual([['GET', businessPath(), 429]]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 429 "Too Many Requests: Rate limit exceeded"',
				description: `The API rate limit was hit and it did not say how long to wait. Gave up after 0 retries and 0 s of waiting (limits: 0 retries, 120 s). ${RAISE_LIMITS()}`,
				httpCode: '429',
			});
		});

		it('Get Many gives up on a page with advice that fits a paged read (no Batching)', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({
				rateLimitBurst: { path: CUSTOMERS, after: 1, retryAfter: 0.2 },
			});
			const { error } = await getCustomers({ options: { maxRetries: 1 } });
			expectNodeApiError(error, {
				message:
					'Get many customers failed: the Business CRM API answered 429 "Too Many Requests: Rate limit exceeded"',
				description: `The API rate limit was hit and it asked to wait 0.2 s. Gave up after 1 retry and 0.2 s of waiting (limits: 1 retry, 120 s). ${RAISE_LIMITS_FOR_PAGES}`,
				httpCode: '429',
			});
		});

		it('Return All: a 429 on page 2 retries page 2 only; no page is lost or read twice', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({
				rateLimitBurst: { path: CUSTOMERS, after: 1, count: 1, retryAfter: 0.2 },
			});
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(pages()).toEqual([
				[0, 200],
				[99, 429],
				[99, 200],
				[198, 200],
			]);
			expect(requestsTo(sandbox, CUSTOMERS).map((request) => request.query.limit)).toEqual([
				'100',
				'100',
				'100',
				'100',
			]);
		});

		it('Return All of businesses: a 429 on the second request repeats exactly that request', async () => {
			sandbox.setFaults({
				rateLimitBurst: { path: BUSINESS_LIST, after: 1, count: 1, retryAfter: 0.2 },
			});
			const { items, error } = await run({
				resource: 'business',
				operation: 'getAll',
				returnAll: true,
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(sandbox.businesses);
			expect(
				requestsTo(sandbox, BUSINESS_LIST).map((request) => [request.query, request.status]),
			).toEqual([
				// The first page holds 20 businesses; the next begins with its last one, at offset 19.
				[{}, 200],
				[{ limit: '100', offset: '19' }, 429],
				[{ limit: '100', offset: '19' }, 200],
			]);
		});

		it('Create is sent again after a 429, and the customer is created once', async () => {
			sandbox.setFaults({ rateLimitBurst: { path: ADD, count: 1, retryAfter: 0.2 } });
			const { items, error } = await createCustomer();
			expect(error).toBeUndefined();
			expect(seen()).toEqual([
				['POST', ADD, 429],
				['POST', ADD, 201],
			]);
			expect(sandbox.customers).toHaveLength(1);
			expect(items).toEqual([{ json: sandbox.customers[0], pairedItem: { item: 0 } }]);
		});

		it("Create of 6 items under the API's real rate limit: each customer once, all paired", async () => {
			// The sandbox's rate-limit window runs on the wall clock.
			time.realTime();
			sandbox.onRequest = undefined;
			const limited = await startSandbox({
				businesses: 1,
				rateLimit: { limit: 3, windowMs: 500 },
			});
			try {
				const people = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald'];
				const { items, error } = await runNode({
					credentials: credentialsFor(limited),
					parameters: {
						resource: 'customer',
						operation: 'create',
						businessId: byId(limited.businesses[0].id),
						firstName: '={{ $json.first }}',
						lastName: 'Test',
					},
					items: people.map((first) => ({ first })),
				});
				expect(error).toBeUndefined();
				expect(items.map((item) => [item.json.firstName, item.pairedItem])).toEqual(
					people.map((first, index) => [first, { item: index }]),
				);
				expect(limited.customers.map((c) => c.firstName).sort()).toEqual([...people].sort());
				const statuses = requestsTo(limited, ADD).map((request) => request.status);
				expect(statuses.filter((status) => status === 201)).toHaveLength(6);
				expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
				expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
			} finally {
				await limited.close();
			}
		});
	});

	describe('Create is never sent twice when it may have worked', () => {
		it.each([500, 502, 503, 504])('after a %i: exactly 1 POST', async (status) => {
			sandbox.setFaults({ serverError: { path: ADD, status } });
			const { items, error } = await createCustomer();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['POST', ADD, status]]);
			expectNodeApiError(error, {
				message: `Create customer failed: the Business CRM API answered ${status} "${STATUS_CODES[status]}: Simulated server fault"`,
				description: `${SERVER_ERROR_HINT} ${MAYBE_CREATED}`,
				httpCode: String(status),
			});
		});

		it('after a dropped connection: exactly 1 POST', async () => {
			sandbox.setFaults({ dropConnection: { path: ADD } });
			const { items, error } = await createCustomer();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['POST', ADD, 0]]);
			expectNodeApiError(error, {
				message: 'Create customer failed: the connection was closed before the reply arrived',
				description: `${DROPPED_HINT} ${MAYBE_CREATED}`,
			});
		});

		it('after a timeout: exactly 1 POST, and the customer may indeed appear later', async () => {
			sandbox.setFaults({ slow: { path: ADD, delayMs: 700 } });
			const { items, error } = await createCustomer({ requestOptions: { timeout: 300 } });
			expect(items).toEqual([]);
			expectNodeApiError(error, {
				message: 'Create customer failed: no answer within 0.3 s',
				description: `${TIMEOUT_HINT} ${MAYBE_CREATED}`,
			});
			await sleep(800);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
			// The server went on after the node stopped waiting: this is why it was not resent.
			expect(sandbox.customers).toHaveLength(1);
		});

		it('after a 200 that is not JSON: exactly 1 POST, and says it may have been created', async () => {
			sandbox.setFaults({ notJson: { path: ADD } });
			const { error } = await createCustomer();
			expect(seen()).toEqual([['POST', ADD, 200]]);
			expectNodeApiError(error, {
				message:
					'Create customer failed: the Business CRM API answered 200 with a body that is not JSON',
				description: `Expected JSON but got content type text/html; charset=utf-8, starting "${FAULT_HTML_START}". Check that the Base URL points at the API, not at a website or proxy page. ${MAYBE_CREATED}`,
			});
		});
	});

	describe('reads are retried after 502, 503, 504 and a dropped connection, not after 500', () => {
		useFastClock(20);
		it.each([502, 503, 504])(
			'Business Get after one %i: retried once, then succeeds',
			async (status) => {
				sandbox.setFaults({ serverError: { status, count: 1 } });
				const { items, error } = await getBusiness();
				expect(error).toBeUndefined();
				expect(items).toEqual([{ json: sandbox.businesses[0], pairedItem: { item: 0 } }]);
				expect(seen()).toEqual([
					['GET', businessPath(), status],
					['GET', businessPath(), 200],
				]);
				expect(gaps(businessPath())[0]).toBeGreaterThanOrEqual(990);
			},
		);

		it('Business Get after a dropped connection (ECONNRESET): retried once, then succeeds', async () => {
			sandbox.setFaults({ dropConnection: { count: 1 } });
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(seen()).toEqual([
				['GET', businessPath(), 0],
				['GET', businessPath(), 200],
			]);
		});

		it('Business Get after a 500: not retried', async () => {
			sandbox.setFaults({ serverError: { status: 500 } });
			const { items, error } = await getBusiness();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['GET', businessPath(), 500]]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 500 "Internal Server Error: Simulated server fault"',
				description: SERVER_ERROR_HINT,
				httpCode: '500',
			});
		});

		it('a 502 that persists: gives up after Max Retries with the 502', async () => {
			sandbox.setFaults({ serverError: { status: 502 } });
			const { error } = await getBusiness({ options: { maxRetries: 1 } });
			expect(seen()).toEqual([
				['GET', businessPath(), 502],
				['GET', businessPath(), 502],
			]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 502 "Bad Gateway: Simulated server fault"',
				description: SERVER_ERROR_HINT,
				httpCode: '502',
			});
		});

		it('Return All: a 502 on page 2 retries page 2 only', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 502, after: 1, count: 1 } });
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(pages()).toEqual([
				[0, 200],
				[99, 502],
				[99, 200],
				[198, 200],
			]);
		});

		it('Return All: a dropped connection on page 3 retries page 3 only', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({ dropConnection: { path: CUSTOMERS, after: 2, count: 1 } });
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(pages()).toEqual([
				[0, 200],
				[99, 200],
				[198, 0],
				[198, 200],
			]);
		});

		it('Return All: a 500 on page 2 stops the read with the 500', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({ serverError: { path: CUSTOMERS, after: 1 } });
			const { items, error } = await getCustomers();
			expect(items).toEqual([]);
			// Page 198 was asked for at the same time as page 99; the read waits for it, then fails.
			expect(pages()).toEqual([
				[0, 200],
				[99, 500],
				[198, 500],
			]);
			expectNodeApiError(error, {
				message:
					'Get many customers failed: the Business CRM API answered 500 "Internal Server Error: Simulated server fault"',
				description: SERVER_ERROR_HINT,
				httpCode: '500',
			});
		});
	});

	describe('every failure is a clear NodeApiError', () => {
		it("400: the API's words, and what to check", async () => {
			const { error } = await createCustomer({ additionalFields: { email: 'not-an-address' } });
			expect(seen()).toEqual([['POST', ADD, 400]]);
			expectNodeApiError(error, {
				message:
					'Create customer failed: the Business CRM API answered 400 "Bad Request: email must be a valid email address"',
				description: 'The API refused the request as invalid. Check the values sent by this node.',
				httpCode: '400',
			});
		});

		it('401: says to check the key and who manages keys', async () => {
			const { error } = await runNode({
				credentials: { ...credentialsFor(sandbox), apiKey: UNKNOWN_CREDENTIAL },
				parameters: {
					resource: 'business',
					operation: 'get',
					businessId: byId(sandbox.businesses[0].id),
				},
			});
			expect(sandbox.requests.map((request) => request.status)).toEqual([401]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 401 "Unauthorized: Invalid or missing API key"',
				description: `Check the API Key in the Business CRM credential: it is missing, mistyped, revoked or expired. ${KEY_HELP}`,
				httpCode: '401',
			});
		});

		it('403 (key of another organization): shows the API err and says to check the organization ID', async () => {
			const { error } = await runNode({
				credentials: { ...credentialsFor(sandbox), apiKey: sandbox.otherOrgApiKey },
				parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
			});
			expectNodeApiError(error, {
				message: `Get many customers failed: the Business CRM API answered 403 "Forbidden: API key does not belong to organization ${sandbox.organizationId}"`,
				description: `The API key is valid but not allowed to do this. Check the Organization ID in the credential (it must be the organization the key belongs to) and the key's permissions. ${KEY_HELP}`,
				httpCode: '403',
			});
		});

		it('403 (key without permission): says to check the permissions', async () => {
			const { error } = await runNode({
				credentials: { ...credentialsFor(sandbox), apiKey: sandbox.readOnlyApiKey },
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: byId(sandbox.businesses[0].id),
					firstName: 'Ada',
					lastName: 'Lovelace',
				},
			});
			expect(sandbox.requests.map((request) => [request.path, request.status])).toEqual([
				[ADD, 403],
			]);
			expectNodeApiError(error, {
				message:
					'Create customer failed: the Business CRM API answered 403 "Forbidden: API key lacks permission customers:write"',
				description: `The API key is valid but not allowed to do this. Check the Organization ID in the credential (it must be the organization the key belongs to) and the key's permissions. ${KEY_HELP}`,
				httpCode: '403',
			});
		});

		it('404 on Business Get names the id', async () => {
			const { error } = await getBusiness({}, 'biz_gone_404');
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 404 "Not Found: Business biz_gone_404 not found"',
				description:
					'No business with ID "biz_gone_404" was found in this organization. Check the ID, or pick the business from the list.',
				httpCode: '404',
			});
		});

		it('a 200 that is not JSON (a proxy login page)', async () => {
			sandbox.setFaults({ notJson: {} });
			const { items, error } = await getBusiness();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['GET', businessPath(), 200]]);
			expectNodeApiError(error, {
				message:
					'Get business failed: the Business CRM API answered 200 with a body that is not JSON',
				description: `Expected JSON but got content type text/html; charset=utf-8, starting "${FAULT_HTML_START}". Check that the Base URL points at the API, not at a website or proxy page.`,
			});
		});

		it('a 200 with an empty body', async () => {
			sandbox.setFaults({ emptyBody: {} });
			const { items, error } = await getCustomers({ returnAll: false, limit: 5 });
			expect(items).toEqual([]);
			expect(pages()).toEqual([[0, 200]]);
			expectNodeApiError(error, {
				message: 'Get many customers failed: the Business CRM API answered 200 with an empty body',
				description:
					'Expected a JSON reply. Check that the Base URL points at the API, not at a website or proxy page.',
			});
		});

		it('a timeout (Request Options › Timeout 300 ms): one request, not retried', async () => {
			sandbox.setFaults({ slow: { delayMs: 1000 } });
			const started = Date.now();
			const { items, error } = await getBusiness({ requestOptions: { timeout: 300 } });
			expect(Date.now() - started).toBeLessThan(1000);
			expect(items).toEqual([]);
			expect(sandbox.requests.map((request) => request.path)).toEqual([businessPath()]);
			expectNodeApiError(error, {
				message: 'Get business failed: no answer within 0.3 s',
				description: TIMEOUT_HINT,
			});
		});

		it('a refused connection (nothing listens at the Base URL)', async () => {
			const port = await closedPort();
			const started = Date.now();
			const refused = await run(
				{ resource: 'business', operation: 'get', businessId: byId('biz_anything') },
				{ baseUrl: `http://127.0.0.1:${port}` },
			);
			expect(Date.now() - started).toBeLessThan(900); // not retried
			expect(refused.items).toEqual([]);
			expectNodeApiError(refused.error, {
				message: 'Get business failed: the server refused the connection',
				description: REFUSED_HINT,
			});
		});
	});

	describe('Create says "may or may not" only when the request may have reached the API', () => {
		it('after a refused connection: nothing was sent, so no warning', async () => {
			const port = await closedPort();
			const { error } = await createCustomer({}, `http://127.0.0.1:${port}`);
			expectNodeApiError(error, {
				message: 'Create customer failed: the server refused the connection',
				description: REFUSED_HINT,
			});
		});

		it('after a host name that does not resolve: nothing was sent, so no warning', async () => {
			const { error } = await createCustomer({}, 'http://no-such-host.invalid');
			expectNodeApiError(error, {
				message: 'Create customer failed: the host name could not be resolved',
				description: 'Check the Base URL in the Business CRM credential for typos.',
			});
		});

		it('after a 200 whose body is a bare JSON string: probably created, and not called "not JSON"', async () => {
			const api = await answeringServer(200, 'application/json', '"customer queued"');
			try {
				const { error } = await createCustomer({}, api.url);
				expectNodeApiError(error, {
					message:
						'Create customer failed: the Business CRM API answered 200 with JSON that is a string, not an object or a list',
					description: `Expected a JSON object or list, but the reply was "customer queued". ${PROBABLY_CREATED}`,
				});
			} finally {
				await api.close();
			}
		});
	});

	describe('a reply that is not a JSON object or list is an error, never data', () => {
		const CHECK_URL = 'Check that the Base URL points at the API';
		/** Business Get against a server that answers with this one reply. */
		const getBusinessAnswered = async (status: number, type: string | undefined, body: string) => {
			const api = await answeringServer(status, type, body);
			try {
				return await run(
					{ resource: 'business', operation: 'get', businessId: byId('biz_1') },
					{ baseUrl: api.url },
				);
			} finally {
				await api.close();
			}
		};
		it.each<[string, number, string | undefined, string, string, string]>([
			[
				'JSON null',
				200,
				'application/json',
				'null',
				'answered 200 with JSON that is null, not an object or a list',
				`Expected a JSON object or list, but the reply was null. ${CHECK_URL}.`,
			],
			[
				'a JSON number',
				200,
				'application/json',
				'42',
				'answered 200 with JSON that is a number, not an object or a list',
				`Expected a JSON object or list, but the reply was 42. ${CHECK_URL}.`,
			],
			[
				'a body of only white space',
				200,
				'application/json',
				' \n\t ',
				'answered 200 with an empty body',
				`Expected a JSON reply. ${CHECK_URL}, not at a website or proxy page.`,
			],
			[
				'HTML over several lines, shown on one',
				200,
				'text/html',
				'<p>\n\n   Sign in</p>',
				'answered 200 with a body that is not JSON',
				`Expected JSON but got content type text/html, starting "<p> Sign in</p>". ${CHECK_URL}, not at a website or proxy page.`,
			],
			[
				'HTML after blank lines, quoted from its first character',
				200,
				'text/html',
				'\n\n  <p>Sign in</p>',
				'answered 200 with a body that is not JSON',
				`Expected JSON but got content type text/html, starting "<p>Sign in</p>". ${CHECK_URL}, not at a website or proxy page.`,
			],
			[
				'text without a content type',
				200,
				undefined,
				'maintenance',
				'answered 200 with a body that is not JSON',
				`Expected JSON but got content type unknown, starting "maintenance". ${CHECK_URL}, not at a website or proxy page.`,
			],
			[
				'a 300 without a Location',
				300,
				'application/json',
				'{"id":"biz_1"}',
				'answered with HTTP 300',
				'Expected a 2xx reply. Check that the Base URL points at the API itself, not at a page that redirects.',
			],
		])('%s', async (_title, status, type, body, message, description) => {
			const { items, error } = await getBusinessAnswered(status, type, body);
			expect(items).toEqual([]);
			expectNodeApiError(error, {
				message: `Get business failed: the Business CRM API ${message}`,
				description,
			});
		});

		it('a JSON list where Business Get expects one business is an error that names the shape', async () => {
			const { items, error } = await getBusinessAnswered(
				200,
				'application/json',
				'[{"id":"biz_1"}]',
			);
			expect(items).toEqual([]);
			expectNodeApiError(error, {
				message: 'The Business CRM API sent a reply of an unexpected shape',
				description:
					'Expected a JSON object but the reply was an array. The node understands the reply shapes listed in its README.',
			});
		});
	});

	describe('a 429 with a wait that cannot be waited says so', () => {
		it.each<[string, unknown, string]>([
			['a negative retryAfter', -5, 'retryAfter -5'],
			['a retryAfter that is text', 'later', 'retryAfter "later"'],
		])('%s', async (_title, retryAfter, shown) => {
			const api = await answeringServer(
				429,
				'application/json',
				JSON.stringify({ message: 'Too Many Requests', err: 'slow down', retryAfter }),
			);
			try {
				const { error } = await run(
					{
						resource: 'business',
						operation: 'get',
						businessId: byId('biz_1'),
						options: { maxRetries: 0 },
					},
					{ baseUrl: api.url },
				);
				expect((error as NodeError).description).toBe(
					`The API rate limit was hit and it gave an invalid wait (${shown}). Gave up after 0 retries and 0 s of waiting (limits: 0 retries, 120 s). ${RAISE_LIMITS()}`,
				);
			} finally {
				await api.close();
			}
		});
	});

	describe('the real cause of a failed request is kept', () => {
		let tls: { url: string; requests: number; close: () => Promise<void> };
		beforeAll(async () => {
			tls = await selfSignedServer();
		});
		afterAll(async () => await tls.close());

		it('a self-signed certificate: names it and the two fixes; nothing reached the API', async () => {
			const before = tls.requests;
			const { error } = await run(
				{ resource: 'business', operation: 'get', businessId: byId('biz_1') },
				{ baseUrl: tls.url },
			);
			expectNodeApiError(error, {
				message:
					'Get business failed: the TLS certificate of the API was not accepted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)',
				description:
					"Fix the certificate on the server, or, if you trust this server, turn on Ignore SSL Issues on this node's Settings tab (Request Options › Ignore SSL Issues).",
			});
			expect(tls.requests).toBe(before);
		});

		it('a self-signed certificate on Create: no "may or may not", nothing was sent', async () => {
			const { error } = await createCustomer({}, tls.url);
			expect((error as NodeError).description).toBe(
				"Fix the certificate on the server, or, if you trust this server, turn on Ignore SSL Issues on this node's Settings tab (Request Options › Ignore SSL Issues).",
			);
		});

		it('with Request Options › Ignore SSL Issues the same server is read', async () => {
			const before = tls.requests;
			const { items, error } = await run(
				{
					resource: 'business',
					operation: 'get',
					businessId: byId('biz_1'),
					requestOptions: { allowUnauthorizedCerts: true },
				},
				{ baseUrl: tls.url },
			);
			expect(error).toBeUndefined();
			expect(items).toEqual([
				{ json: { id: 'biz_1', name: 'TLS Bakery' }, pairedItem: { item: 0 } },
			]);
			expect(tls.requests).toBe(before + 1);
		});

		it("the credential's Allowed Domains: the node's own refusal and the fix; nothing reached the API", async () => {
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			sandbox.clearLog();
			const refused = await runNode({
				credentials: {
					...credentialsFor(sandbox),
					allowedHttpRequestDomains: 'domains',
					allowedDomains: 'api.example.com',
				},
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
			});
			// Checked by the node itself before anything is sent, on every road, as a problem with the
			// credential (a NodeOperationError); n8n's routing reports it as a NodeApiError with its words.
			expectNodeApiError(refused.error, {
				message:
					"The Base URL's host 127.0.0.1 is not among the Allowed Domains of the Business CRM credential (api.example.com), so the node sends nothing",
				description:
					'Open the credential and add 127.0.0.1 to Allowed Domains, or set Allowed HTTP Request Domains to All.',
			});
			expect(sandbox.requests).toEqual([]);
		});

		it.each<[string, CrmCredentials['allowedHttpRequestDomains'], string | undefined]>([
			['Specific Domains listing the host', 'domains', '127.0.0.1'],
			['Specific Domains with a wildcard and the host', 'domains', '*.example.com, 127.0.0.1'],
			['All', 'all', undefined],
			['None (which n8n applies to the HTTP Request node only)', 'none', undefined],
		])(
			"the credential's Allowed Domains set to %s: the request goes through",
			async (_title, mode, domains) => {
				const { items, error } = await runNode({
					credentials: {
						...credentialsFor(sandbox),
						allowedHttpRequestDomains: mode,
						...(domains === undefined ? {} : { allowedDomains: domains }),
					},
					parameters: {
						resource: 'business',
						operation: 'get',
						businessId: byId(sandbox.businesses[0].id),
					},
				});
				expect(error).toBeUndefined();
				expect(items).toHaveLength(1);
				expect(seen()).toEqual([['GET', businessPath(), 200]]);
			},
		);

		it("n8n's SSRF protection: its reason and who can allow the host; nothing reached the API", async () => {
			const ssrf = await withSsrfProtection(async () => {
				const get = await runNode({
					credentials: credentialsFor(sandbox),
					parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				});
				const create = await runNode({
					credentials: credentialsFor(sandbox),
					parameters: {
						resource: 'customer',
						operation: 'create',
						businessId: byId('biz_1'),
						firstName: 'Ada',
						lastName: 'Lovelace',
					},
				});
				return [get.error, create.error];
			});
			const description =
				"n8n's SSRF protection keeps nodes away from private and internal addresses. Ask your n8n administrator to allow the Base URL's host (N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES).";
			expectNodeApiError(ssrf[0], {
				message:
					'Get business failed: n8n blocked it: the request was blocked because it resolves to a restricted IP address',
				description,
			});
			expectNodeApiError(ssrf[1], {
				message:
					'Create customer failed: n8n blocked it: the request was blocked because it resolves to a restricted IP address',
				description,
			});
			expect(sandbox.requests).toEqual([]);
		});
	});

	describe('Continue On Fail: the failing item becomes an error item, the others go on', () => {
		it('3 Create items, the middle one for a business that does not exist', async () => {
			const good = sandbox.businesses[0].id;
			const { items, error } = await run(
				{
					resource: 'customer',
					operation: 'create',
					businessId: { __rl: true, mode: 'id', value: '={{ $json.business }}' },
					firstName: '={{ $json.first }}',
					lastName: 'Test',
				},
				{
					items: [
						{ business: good, first: 'Ada' },
						{ business: 'biz_nowhere', first: 'Grace' },
						{ business: good, first: 'Alan' },
					],
					onError: 'continueRegularOutput',
				},
			);
			expect(error).toBeUndefined();
			expect(sandbox.customers.map((c) => c.firstName).sort()).toEqual(['Ada', 'Alan']);
			const byName = (name: string) => sandbox.customers.find((c) => c.firstName === name);
			expect(items).toEqual([
				{ json: byName('Ada'), pairedItem: { item: 0 } },
				{
					json: errorJson(
						'Create customer failed: the Business CRM API answered 404 "Not Found: Business biz_nowhere not found"',
						'The API did not find business "biz_nowhere" (or the endpoint). Check the business ID, or pick the business from the list.',
					),
					pairedItem: { item: 1 },
				},
				{ json: byName('Alan'), pairedItem: { item: 2 } },
			]);
			expect(requestsTo(sandbox, ADD)).toHaveLength(3);
		});

		it('a refused connection on 2 items: 2 error items, never an empty json', async () => {
			const port = await closedPort();
			const { items, error } = await run(
				{ resource: 'customer', operation: 'getAll', returnAll: true },
				{ items: [{}, {}], onError: 'continueRegularOutput', baseUrl: `http://127.0.0.1:${port}` },
			);
			expect(error).toBeUndefined();
			const failed = errorJson(
				'Get many customers failed: the server refused the connection',
				REFUSED_HINT,
			);
			expect(items).toEqual([
				{ json: failed, pairedItem: { item: 0 } },
				{ json: failed, pairedItem: { item: 1 } },
			]);
		});

		it('timeout, non-JSON and empty body each give an error item with the error text', async () => {
			const proxyPage =
				'Check that the Base URL points at the API, not at a website or proxy page.';
			const cases: Array<[Faults, INodeParameters, string, string]> = [
				[
					{ slow: { delayMs: 600 } },
					{ requestOptions: { timeout: 300 } },
					'Get business failed: no answer within 0.3 s',
					TIMEOUT_HINT,
				],
				[
					{ notJson: {} },
					{},
					'Get business failed: the Business CRM API answered 200 with a body that is not JSON',
					`Expected JSON but got content type text/html; charset=utf-8, starting "${FAULT_HTML_START}". ${proxyPage}`,
				],
				[
					{ emptyBody: {} },
					{},
					'Get business failed: the Business CRM API answered 200 with an empty body',
					`Expected a JSON reply. ${proxyPage}`,
				],
			];
			for (const [faults, extra, message, description] of cases) {
				sandbox.setFaults(faults);
				const { items, error } = await run(
					{
						resource: 'business',
						operation: 'get',
						businessId: byId(sandbox.businesses[0].id),
						...extra,
					},
					{ onError: 'continueRegularOutput' },
				);
				expect(error).toBeUndefined();
				expect(items).toEqual([{ json: errorJson(message, description), pairedItem: { item: 0 } }]);
			}
		});
	});

	describe('Return All cannot run away', () => {
		const PAST_TOTAL = (total: number) =>
			`Get many customers failed: the API kept answering hasMore: true past its own total of ${total} customers`;

		// The read goes on while the next offset is below the total, and stops at the first page whose
		// offset reaches it. Pages overlap by one customer (offsets 0, 99, 198, ...); a page after a
		// short one begins with its last customer, and a page of one customer cannot overlap the next,
		// which then follows it directly (…, 149, 150). An empty page moves on by the limit applied.
		it.each<[string, number, Faults, number, number[]]>([
			['hasMore forever, 150 customers', 150, { hasMoreForever: true }, 150, [0, 99, 149, 150]],
			['hasMore forever, 100 customers', 100, { hasMoreForever: true }, 100, [0, 99, 100]],
			['hasMore forever, no customers', 0, { hasMoreForever: true }, 0, [0]],
			[
				'empty pages with hasMore, 150 customers',
				150,
				{ emptyPagesWithHasMore: true },
				150,
				[0, 100, 200],
			],
			['empty pages with hasMore, no customers', 0, { emptyPagesWithHasMore: true }, 0, [0]],
			['a total of 50 over 250 customers', 250, { totalOverride: 50 }, 50, [0, 99]],
			['a total of 0 over 150 customers', 150, { totalOverride: 0 }, 0, [0]],
			[
				'a total of 120 with hasMore forever',
				150,
				{ totalOverride: 120, hasMoreForever: true },
				120,
				[0, 99, 149],
			],
		])(
			'%s: stops with an error at the first page whose offset reaches the total',
			async (_title, count, faults, total, offsets) => {
				sandbox.seedCustomers(count);
				sandbox.setFaults(faults);
				const { items, error } = await getCustomers();
				expect(items).toEqual([]);
				const requests = requestsTo(sandbox, CUSTOMERS);
				expect(
					requests.map((request) => Number(request.query.offset)).sort((a, b) => a - b),
				).toEqual(offsets);
				expect(error?.message).toBe(PAST_TOTAL(total));
				expect(error?.description).toMatch(
					new RegExp(
						`^The reply for offset ${offsets[offsets.length - 1]} says more customers follow, but total \\(${total}\\) says the list ended\\. The read stopped after ${offsets.length} requests instead of looping;`,
					),
				);
			},
		);

		it('a total far above the real count with hasMore forever: stops after 10 pages that bring nothing', async () => {
			sandbox.seedCustomers(150);
			sandbox.setFaults({ totalOverride: 100_000, hasMoreForever: true });
			const { items, error } = await getCustomers();
			expect(items).toEqual([]);
			// 2 pages with the 150 customers (0 and 99), and the 9 pages read ahead in steps of 99 from
			// 198, dropped once page 99 came short; then 10 pages in a row that bring nothing new: 149
			// (only the customer it repeats), 150 and 8 more empty ones (not 1,001 requests).
			expect(
				requestsTo(sandbox, CUSTOMERS)
					.map((request) => Number(request.query.offset))
					.sort((a, b) => a - b),
			).toEqual(
				[
					0,
					99,
					149,
					...Array.from({ length: 9 }, (_, index) => 198 + index * 99),
					...Array.from({ length: 9 }, (_, index) => 150 + index * 100),
				].sort((a, b) => a - b),
			);
			expect(error?.message).toBe(
				'Get many customers failed: the API kept answering hasMore: true without new customers',
			);
			expect(error?.description).toMatch(
				/^21 pages were read \(150 customers\); the last 10 brought nothing new, although total says 100000\./,
			);
		});

		it('no total and hasMore forever: stops after 10 pages that bring nothing, and says no total was given', async () => {
			sandbox.seedCustomers(150);
			sandbox.setFaults({ omitTotal: true, hasMoreForever: true });
			const { items, error } = await getCustomers();
			expect(items).toEqual([]);
			// 0 and 99 bring the 150 customers; 149 only the one it repeats, then 150, 250, ... 950 empty.
			expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(12);
			expect(error?.message).toBe(
				'Get many customers failed: the API kept answering hasMore: true without new customers',
			);
			expect(error?.description).toBe(
				'12 pages were read (150 customers); the last 10 brought nothing new and no total was given. The read stopped instead of looping.',
			);
		});

		it('customers added at the start between pages: the list is read again, each customer output once', async () => {
			sandbox.seedCustomers(250);
			const businessId = sandbox.businesses[0].id;
			let added = 0;
			sandbox.onRequest = (entry) => {
				if (entry.path !== CUSTOMERS || entry.query.offset === '0' || added >= 14) return;
				// 7 new customers at the head of the list before pages 2 and 3 of the first read: the
				// offsets shift, so those pages do not begin with the customer the page before ended with.
				const fresh = Array.from({ length: 7 }, () =>
					customer(`cust_added_${String(added++).padStart(4, '0')}`, businessId),
				);
				sandbox.customers.unshift(...fresh);
			};
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			const ids = items.map((item) => item.json.id as string);
			expect(new Set(ids).size).toBe(ids.length);
			// The second read, whose pages join up: the list as it is after the change.
			expect(sandbox.customers).toHaveLength(264);
			expect(ids).toEqual(sandbox.customers.map((c) => c.id));
			expect(pages()).toEqual([
				[0, 200],
				[0, 200],
				[99, 200],
				[99, 200],
				[198, 200],
				[198, 200],
			]);
		});

		it('customers added at the end between pages are read too, each once', async () => {
			sandbox.seedCustomers(150);
			const businessId = sandbox.businesses[0].id;
			let added = 0;
			sandbox.onRequest = (entry) => {
				if (entry.path !== CUSTOMERS || entry.query.offset !== '99') return;
				for (let i = 0; i < 60; i++) {
					sandbox.customers.push(
						customer(`cust_late_${String(added++).padStart(4, '0')}`, businessId),
					);
				}
			};
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			const ids = items.map((item) => item.json.id as string);
			expect(ids).toEqual(sandbox.customers.map((c) => c.id));
			expect(ids).toHaveLength(210);
			// Added after the end, they do not move the pages: one read, whose pages join up.
			expect(pages()).toEqual([
				[0, 200],
				[99, 200],
				[198, 200],
			]);
		});
	});
});
