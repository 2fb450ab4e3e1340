/**
 * Fault injection: rate limits, server faults, dropped connections, timeouts, refused
 * connections, unusable replies and pagination that would never end. Each test asserts the
 * requests the sandbox saw (method, path, offsets, statuses) and the exact error the user gets.
 */
import { STATUS_CODES } from 'node:http';
import { dirname } from 'node:path';
import { sleep, type INodeParameters } from 'n8n-workflow';
import {
	startSandbox,
	type Faults,
	type Sandbox,
	type SandboxCustomer,
} from '../sandbox/server.cjs';
import { runNode, type CrmCredentials, type RunResult } from '../helpers/harness.cjs';
import {
	answered,
	byId,
	closedPort,
	credentialsFor,
	failed,
	requestsTo,
} from '../helpers/fixtures.cjs';
import { clock, useFastClock } from '../helpers/clock.cjs';
import {
	always,
	json,
	selfSignedCertificate,
	startApi,
	withApi,
	type ScriptedApi,
} from '../helpers/scripted-api.cjs';
import { SERVER_ERROR_HINT, STATUS_HINTS } from '../../nodes/BusinessCrm/errors/errors';
import type { ErrorType } from '../../nodes/BusinessCrm/errors/errorTypes';
import {
	CERTIFICATE_HELP,
	CERTIFICATE_REFUSED,
	DROPPED,
	DROPPED_HELP,
	REFUSED,
	REFUSED_HELP,
	SSRF_HELP,
	TIMEOUT_HELP,
	UNRESOLVED,
	UNRESOLVED_HELP,
} from '../../nodes/BusinessCrm/api/failures';
import {
	NO_WAIT_SAID,
	OR_BATCHING,
	RATE_LIMIT_HIT,
	UNDER_OPTIONS,
} from '../../nodes/BusinessCrm/api/rateLimit';
import {
	EMPTY_REPLY,
	EXPECTED_JSON,
	NOT_A_WEBSITE,
	NOT_JSON_REPLY,
} from '../../nodes/BusinessCrm/api/reply';
import { NOTHING_NEW, PAST_TOTAL } from '../../nodes/BusinessCrm/api/listReader';
import {
	checkCredential,
	type CredentialProblem,
} from '../../nodes/BusinessCrm/credential/credential';
import {
	MAYBE_CREATED,
	PROBABLY_CREATED,
} from '../../nodes/BusinessCrm/resources/customer/create/request';

const CUSTOMERS = '/api/public/v1/customers';
const ADD = '/api/business/crm/customer/add';
const BUSINESS_LIST = '/api/business/list/all';

/** A credential the sandbox does not know. */
const UNKNOWN_CREDENTIAL = ['revoked', 'credential', '0001'].join('-');
/** The start of the sandbox's sign-in page, as a message quotes it. */
const FAULT_HTML_START =
	'<!DOCTYPE html> <html><head><title>Sign in</title></head><body><h1>Please sign in</h1><p>This page is serv'.slice(
		0,
		80,
	);
const NOT_JSON_HELP = `Expected JSON but got content type text/html; charset=utf-8, starting "${FAULT_HTML_START}". ${NOT_A_WEBSITE}`;
const RATE_LIMITED = '"Too Many Requests: Rate limit exceeded"';

/**
 * What a 429 that outlasted the retries says: the wait asked for, what was spent, and the one
 * limit to raise. Batching spaces out input items, not the pages of one Get Many, so it is not
 * offered for a page.
 */
const gaveUp = (asked: string, spent: string, raise = 'Raise Max Retries', page = false) =>
	`${RATE_LIMIT_HIT} ${asked}. Gave up after ${spent}. ${raise} ${UNDER_OPTIONS}${page ? '.' : `, ${OR_BATCHING}`}`;

/** The json of a Continue On Fail error item: the message, then the advice, and its kind. */
const errorJson = (message: string, description: string, errorType: ErrorType) => ({
	error: `${message}. ${description}`,
	errorType,
});

type NodeError = NonNullable<RunResult['error']> & { httpCode?: string | null };

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
			// As a production run sends it: a Create run from the editor also reads the list for its
			// duplicate warning (duplicateHint.test.cts), which is not what these tests count.
			mode: 'trigger',
		});

	const getBusiness = (
		extra: INodeParameters = {},
		id = sandbox.businesses[0].id,
		baseUrl?: string,
	) => run({ resource: 'business', operation: 'get', businessId: byId(id), ...extra }, { baseUrl });
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
		// Bounded from above: at 20 times, 45 ms of a busy machine's delay would pass the bound.
		it.each<[string, NonNullable<Faults['rateLimitBurst']>, Array<[number, number]>]>([
			[
				'waits the retryAfter of the body (seconds, here 0.2) before each retry, not the backoff',
				{ retryAfter: 0.2 },
				[
					[190, 900],
					[190, 900],
				],
			],
			[
				'waits the Retry-After header when the body has no retryAfter: 1 s both times',
				{ retryAfter: 1, retryAfterHeader: true, omitRetryAfter: true },
				[
					[990, Infinity],
					[990, 1900],
				],
			],
			[
				'backs off 1 s, then 2 s when the reply says nothing about waiting',
				{ omitRetryAfter: true },
				[
					[990, 1900],
					[1990, 2900],
				],
			],
		])('%s', async (_title, burst, bounds) => {
			time.only(4);
			sandbox.setFaults({ rateLimitBurst: { count: 2, ...burst } });
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: sandbox.businesses[0], pairedItem: { item: 0 } }]);
			expect(seen()).toEqual([
				['GET', businessPath(), 429],
				['GET', businessPath(), 429],
				['GET', businessPath(), 200],
			]);
			const waited = gaps(businessPath());
			expect(waited).toHaveLength(2);
			waited.forEach((gap, index) => {
				expect(gap).toBeGreaterThanOrEqual(bounds[index][0]);
				expect(gap).toBeLessThan(bounds[index][1]);
			});
		});

		it.each<[string, NonNullable<Faults['rateLimitBurst']>, INodeParameters, number, string]>([
			[
				'gives up after Max Retries with the API words and the wait it asked for',
				{ retryAfter: 1 },
				{ maxRetries: 1 },
				2,
				gaveUp('it asked to wait 1 s', '1 retry and 1 s of waiting (limits: 1 retry, 120 s)'),
			],
			[
				'gives up when the next wait would pass Max Total Wait',
				{ retryAfter: 1 },
				{ maxRetries: 5, maxRetryWait: 2 },
				3,
				gaveUp(
					'it asked to wait 1 s',
					'2 retries and 2 s of waiting (limits: 5 retries, 2 s)',
					'Raise Max Total Wait to at least 3 s',
				),
			],
			[
				'does not wait at all when the API asks for more than Max Total Wait (header only)',
				{ retryAfter: 30, retryAfterHeader: true, omitRetryAfter: true },
				{ maxRetryWait: 10 },
				1,
				gaveUp(
					'it asked to wait 30 s',
					'0 retries and 0 s of waiting (limits: 5 retries, 10 s)',
					'Raise Max Total Wait to at least 30 s',
				),
			],
			[
				'sends once with Max Retries 0, and says when the API did not say how long to wait',
				{ omitRetryAfter: true },
				{ maxRetries: 0 },
				1,
				gaveUp(NO_WAIT_SAID, '0 retries and 0 s of waiting (limits: 0 retries, 120 s)'),
			],
		])('%s', async (_title, burst, options, sent, description) => {
			sandbox.setFaults({ rateLimitBurst: burst });
			const started = Date.now();
			const { items, error } = await getBusiness({ options });
			expect(Date.now() - started).toBeLessThan(2000);
			expect(items).toEqual([]);
			expect(seen()).toEqual(Array.from({ length: sent }, () => ['GET', businessPath(), 429]));
			expectNodeApiError(error, {
				message: answered('Get business', 429, RATE_LIMITED),
				description,
				httpCode: '429',
			});
		});

		it.each<[string, unknown, string]>([
			['a negative retryAfter', -5, 'retryAfter -5'],
			['a retryAfter that is text', 'later', 'retryAfter "later"'],
		])(
			'a 429 with a wait that cannot be waited says so: %s',
			async (_title, retryAfter, shown) =>
				await withApi(
					always(
						429,
						JSON.stringify({ message: 'Too Many Requests', err: 'slow down', retryAfter }),
					),
					async (api) => {
						const { error } = await getBusiness({ options: { maxRetries: 0 } }, 'biz_1', api.url);
						expect((error as NodeError).description).toBe(
							gaveUp(
								`it gave an invalid wait (${shown})`,
								'0 retries and 0 s of waiting (limits: 0 retries, 120 s)',
							),
						);
					},
				),
		);

		it('Get Many gives up on a page with advice that fits a paged read (no Batching)', async () => {
			sandbox.seedCustomers(250);
			sandbox.setFaults({
				rateLimitBurst: { path: CUSTOMERS, after: 1, retryAfter: 0.2 },
			});
			const { error } = await getCustomers({ options: { maxRetries: 1 } });
			expectNodeApiError(error, {
				message: answered('Get many customers', 429, RATE_LIMITED),
				description: gaveUp(
					'it asked to wait 0.2 s',
					'1 retry and 0.2 s of waiting (limits: 1 retry, 120 s)',
					undefined,
					true,
				),
				httpCode: '429',
			});
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
	});

	/** The message of an error reply of the sandbox's own faults. */
	const simulated = (what: string, status: number) =>
		answered(what, status, `"${STATUS_CODES[status]}: Simulated server fault"`);

	describe('Create is never sent twice when it may have worked', () => {
		it.each<[string, Faults, number, string, string, string | undefined]>([
			...[500, 502, 503, 504].map((status): [string, Faults, number, string, string, string] => [
				`after a ${status}`,
				{ serverError: { path: ADD, status } },
				status,
				simulated('Create customer', status),
				SERVER_ERROR_HINT,
				String(status),
			]),
			[
				'after a dropped connection',
				{ dropConnection: { path: ADD } },
				0,
				failed('Create customer', DROPPED),
				DROPPED_HELP,
				undefined,
			],
			[
				'after a 200 that is not JSON, saying it may have been created',
				{ notJson: { path: ADD } },
				200,
				answered('Create customer', 200, NOT_JSON_REPLY),
				NOT_JSON_HELP,
				undefined,
			],
		])('%s: exactly 1 POST', async (_title, faults, status, message, hint, httpCode) => {
			sandbox.setFaults(faults);
			const { items, error } = await createCustomer();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['POST', ADD, status]]);
			expectNodeApiError(error, { message, description: `${hint} ${MAYBE_CREATED}`, httpCode });
		});

		it('after a timeout: exactly 1 POST, and the customer may indeed appear later', async () => {
			sandbox.setFaults({ slow: { path: ADD, delayMs: 700 } });
			const { items, error } = await createCustomer({ requestOptions: { timeout: 300 } });
			expect(items).toEqual([]);
			expectNodeApiError(error, {
				message: failed('Create customer', 'no answer within 0.3 s'),
				description: `${TIMEOUT_HELP} ${MAYBE_CREATED}`,
			});
			await sleep(800);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
			// The server went on after the node stopped waiting: this is why it was not resent.
			expect(sandbox.customers).toHaveLength(1);
		});
	});

	describe('reads are retried after 502, 503, 504, a dropped connection and a 429, not after 500', () => {
		useFastClock(20);
		it.each<[string, Faults, number]>([
			['one 502', { serverError: { status: 502, count: 1 } }, 502],
			['one 503', { serverError: { status: 503, count: 1 } }, 503],
			['one 504', { serverError: { status: 504, count: 1 } }, 504],
			['a dropped connection (ECONNRESET)', { dropConnection: { count: 1 } }, 0],
		])('Business Get after %s: retried once, then succeeds', async (_title, faults, status) => {
			sandbox.setFaults(faults);
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: sandbox.businesses[0], pairedItem: { item: 0 } }]);
			expect(seen()).toEqual([
				['GET', businessPath(), status],
				['GET', businessPath(), 200],
			]);
			expect(gaps(businessPath())[0]).toBeGreaterThanOrEqual(990);
		});

		it.each<[string, number, INodeParameters, number]>([
			['after a 500: not retried', 500, {}, 1],
			['a 502 that persists: gives up after Max Retries with the 502', 502, { maxRetries: 1 }, 2],
		])('Business Get %s', async (_title, status, options, sent) => {
			sandbox.setFaults({ serverError: { status } });
			const { items, error } = await getBusiness({ options });
			expect(items).toEqual([]);
			expect(seen()).toEqual(Array.from({ length: sent }, () => ['GET', businessPath(), status]));
			expectNodeApiError(error, {
				message: simulated('Get business', status),
				description: SERVER_ERROR_HINT,
				httpCode: String(status),
			});
		});

		it.each<[string, Faults, Array<[number, number]>]>([
			[
				'a 429 on page 2 retries page 2 only',
				{ rateLimitBurst: { path: CUSTOMERS, after: 1, count: 1, retryAfter: 0.2 } },
				[
					[0, 200],
					[99, 429],
					[99, 200],
					[198, 200],
				],
			],
			[
				'a 502 on page 2 retries page 2 only',
				{ serverError: { path: CUSTOMERS, status: 502, after: 1, count: 1 } },
				[
					[0, 200],
					[99, 502],
					[99, 200],
					[198, 200],
				],
			],
			[
				'a dropped connection on page 3 retries page 3 only',
				{ dropConnection: { path: CUSTOMERS, after: 2, count: 1 } },
				[
					[0, 200],
					[99, 200],
					[198, 0],
					[198, 200],
				],
			],
		])('Return All: %s; no page is lost or read twice', async (_title, faults, expected) => {
			sandbox.seedCustomers(250);
			sandbox.setFaults(faults);
			const { items, error } = await getCustomers();
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(pages()).toEqual(expected);
			expect(requestsTo(sandbox, CUSTOMERS).map((request) => request.query.limit)).toEqual(
				expected.map(() => '100'),
			);
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
				message: simulated('Get many customers', 500),
				description: SERVER_ERROR_HINT,
				httpCode: '500',
			});
		});
	});

	describe('every failure is a clear NodeApiError', () => {
		const create = (): INodeParameters => ({
			resource: 'customer',
			operation: 'create',
			businessId: byId(sandbox.businesses[0].id),
			firstName: 'Ada',
			lastName: 'Lovelace',
		});
		const get = (id: string): INodeParameters => ({
			resource: 'business',
			operation: 'get',
			businessId: byId(id),
		});

		interface Refusal {
			credentials?: Partial<CrmCredentials>;
			parameters: INodeParameters;
			/** [method, path, status] of the one request. */
			request: [string, string, number];
			/** The operation, as the message names it. */
			what: string;
			/** The API's words, quoted. */
			said: string;
			description: string;
		}
		it.each<[string, () => Refusal]>([
			[
				"400: the API's words, and what to check",
				() => ({
					parameters: { ...create(), additionalFields: { email: 'not-an-address' } },
					request: ['POST', ADD, 400],
					what: 'Create customer',
					said: '"Bad Request: email must be a valid email address"',
					description: STATUS_HINTS[400],
				}),
			],
			[
				'401: says to check the key and who manages keys',
				() => ({
					credentials: { apiKey: UNKNOWN_CREDENTIAL },
					parameters: get(sandbox.businesses[0].id),
					request: ['GET', businessPath(), 401],
					what: 'Get business',
					said: '"Unauthorized: Invalid or missing API key"',
					description: STATUS_HINTS[401],
				}),
			],
			[
				'403 (key of another organization): shows the API err and says to check the organization ID',
				() => ({
					credentials: { apiKey: sandbox.otherOrgApiKey },
					parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
					request: ['GET', CUSTOMERS, 403],
					what: 'Get many customers',
					said: `"Forbidden: API key does not belong to organization ${sandbox.organizationId}"`,
					description: STATUS_HINTS[403],
				}),
			],
			[
				'403 (key without permission): says to check the permissions',
				() => ({
					credentials: { apiKey: sandbox.readOnlyApiKey },
					parameters: create(),
					request: ['POST', ADD, 403],
					what: 'Create customer',
					said: '"Forbidden: API key lacks permission customers:write"',
					description: STATUS_HINTS[403],
				}),
			],
			[
				'404 on Business Get names the id',
				() => ({
					parameters: get('biz_gone_404'),
					request: ['GET', '/api/business/biz_gone_404', 404],
					what: 'Get business',
					said: '"Not Found: Business biz_gone_404 not found"',
					description:
						'No business with ID "biz_gone_404" was found in this organization. Check the ID, or pick the business from the list.',
				}),
			],
		])('%s', async (_title, refusal) => {
			const { credentials, parameters, request, what, said, description } = refusal();
			const { error } = await runNode({
				credentials: { ...credentialsFor(sandbox), ...credentials },
				parameters,
			});
			expect(seen()).toEqual([request]);
			const [, , status] = request;
			expectNodeApiError(error, {
				message: answered(what, status, said),
				description,
				httpCode: String(status),
			});
		});

		it('a 200 that is not JSON (a proxy login page)', async () => {
			sandbox.setFaults({ notJson: {} });
			const { items, error } = await getBusiness();
			expect(items).toEqual([]);
			expect(seen()).toEqual([['GET', businessPath(), 200]]);
			expectNodeApiError(error, {
				message: answered('Get business', 200, NOT_JSON_REPLY),
				description: NOT_JSON_HELP,
			});
		});

		it('a 200 with an empty body', async () => {
			sandbox.setFaults({ emptyBody: {} });
			const { items, error } = await getCustomers({ returnAll: false, limit: 5 });
			expect(items).toEqual([]);
			expect(pages()).toEqual([[0, 200]]);
			expectNodeApiError(error, {
				message: answered('Get many customers', 200, EMPTY_REPLY),
				description: `${EXPECTED_JSON} ${NOT_A_WEBSITE}`,
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
				message: failed('Get business', 'no answer within 0.3 s'),
				description: TIMEOUT_HELP,
			});
		});

		it('a refused connection (nothing listens at the Base URL)', async () => {
			const port = await closedPort();
			const started = Date.now();
			const refused = await getBusiness({}, 'biz_anything', `http://127.0.0.1:${port}`);
			expect(Date.now() - started).toBeLessThan(900); // not retried
			expect(refused.items).toEqual([]);
			expectNodeApiError(refused.error, {
				message: failed('Get business', REFUSED),
				description: REFUSED_HELP,
			});
		});
	});

	describe('Create says "may or may not" only when the request may have reached the API', () => {
		it.each<[string, () => string | Promise<string>, string, string]>([
			[
				'a refused connection',
				async () => `http://127.0.0.1:${await closedPort()}`,
				REFUSED,
				REFUSED_HELP,
			],
			[
				'a host name that does not resolve',
				() => 'http://no-such-host.invalid',
				UNRESOLVED,
				UNRESOLVED_HELP,
			],
		])('after %s: nothing was sent, so no warning', async (_title, baseUrl, message, hint) => {
			const { error } = await createCustomer({}, await baseUrl());
			expectNodeApiError(error, { message: failed('Create customer', message), description: hint });
		});

		it('after a 200 whose body is a bare JSON string: probably created, and not called "not JSON"', async () =>
			await withApi(always(200, '"customer queued"'), async (api) => {
				const { error } = await createCustomer({}, api.url);
				expectNodeApiError(error, {
					message: answered(
						'Create customer',
						200,
						'with JSON that is a string, not an object or a list',
					),
					description: `Expected a JSON object or list, but the reply was "customer queued". ${PROBABLY_CREATED}`,
				});
			}));
	});

	describe('the real cause of a failed request is kept', () => {
		const TLS_BUSINESS = { id: 'biz_1', name: 'TLS Bakery' };
		let tls: ScriptedApi;
		beforeAll(async () => {
			tls = await startApi(
				(_request, _url, response) => json(response, 200, { content: { business: TLS_BUSINESS } }),
				{ tls: selfSignedCertificate() },
			);
		});
		afterAll(async () => await tls.close());

		it('a self-signed certificate: names it and the two fixes; nothing reached the API', async () => {
			const before = tls.urls.length;
			const { error } = await getBusiness({}, 'biz_1', tls.url);
			expectNodeApiError(error, {
				message: failed(
					'Get business',
					`${CERTIFICATE_REFUSED}: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
				),
				description: CERTIFICATE_HELP,
			});
			expect(tls.urls).toHaveLength(before);
		});

		it('a self-signed certificate on Create: no "may or may not", nothing was sent', async () => {
			const { error } = await createCustomer({}, tls.url);
			expect((error as NodeError).description).toBe(CERTIFICATE_HELP);
		});

		it('with Request Options › Ignore SSL Issues the same server is read', async () => {
			const before = tls.urls.length;
			const { items, error } = await getBusiness(
				{ requestOptions: { allowUnauthorizedCerts: true } },
				'biz_1',
				tls.url,
			);
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: TLS_BUSINESS, pairedItem: { item: 0 } }]);
			expect(tls.urls).toHaveLength(before + 1);
		});

		it("the credential's Allowed Domains: the node's own refusal and the fix; nothing reached the API", async () => {
			const { items, error } = await getBusiness();
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			sandbox.clearLog();
			const restricted: CrmCredentials = {
				...credentialsFor(sandbox),
				allowedHttpRequestDomains: 'domains',
				allowedDomains: 'api.example.com',
			};
			const refused = await runNode({
				credentials: restricted,
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
			});
			// Checked by the node itself before anything is sent, on every road, as a problem with the
			// credential (a NodeOperationError); n8n's routing reports it as a NodeApiError with its words.
			const { problem, fix } = checkCredential({ ...restricted }) as CredentialProblem;
			expect(problem).toContain('127.0.0.1');
			expectNodeApiError(refused.error, { message: problem, description: fix });
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
			// After "n8n blocked it: ", n8n's own words.
			const blocked =
				'n8n blocked it: the request was blocked because it resolves to a restricted IP address';
			expectNodeApiError(ssrf[0], {
				message: failed('Get business', blocked),
				description: SSRF_HELP,
			});
			expectNodeApiError(ssrf[1], {
				message: failed('Create customer', blocked),
				description: SSRF_HELP,
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
						`Row 2 (Grace Test): ${answered('Create customer', 404, '"Not Found: Business biz_nowhere not found"')}`,
						'The API did not find business "biz_nowhere" (or the endpoint). Check the business ID, or pick the business from the list.',
						'notFound',
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
			const refused = errorJson(failed('Get many customers', REFUSED), REFUSED_HELP, 'unavailable');
			expect(items).toEqual([
				{ json: refused, pairedItem: { item: 0 } },
				{ json: refused, pairedItem: { item: 1 } },
			]);
		});

		it('timeout, non-JSON and empty body each give an error item with the error text', async () => {
			const cases: Array<[Faults, INodeParameters, string, string, ErrorType]> = [
				[
					{ slow: { delayMs: 600 } },
					{ requestOptions: { timeout: 300 } },
					failed('Get business', 'no answer within 0.3 s'),
					TIMEOUT_HELP,
					'unavailable',
				],
				[
					{ notJson: {} },
					{},
					answered('Get business', 200, NOT_JSON_REPLY),
					NOT_JSON_HELP,
					'configuration',
				],
				[
					{ emptyBody: {} },
					{},
					answered('Get business', 200, EMPTY_REPLY),
					`${EXPECTED_JSON} ${NOT_A_WEBSITE}`,
					'configuration',
				],
			];
			for (const [faults, extra, message, description, type] of cases) {
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
				expect(items).toEqual([
					{ json: errorJson(message, description, type), pairedItem: { item: 0 } },
				]);
			}
		});
	});

	describe('Return All cannot run away', () => {
		const pastTotal = (total: number) =>
			failed('Get many customers', `${PAST_TOTAL} ${total} customers`);

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
				expect(error?.message).toBe(pastTotal(total));
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
			expect(error?.message).toBe(failed('Get many customers', `${NOTHING_NEW} customers`));
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
			expect(error?.message).toBe(failed('Get many customers', `${NOTHING_NEW} customers`));
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
