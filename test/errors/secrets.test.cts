/**
 * The API key never reaches anything the node produces: not an error's message, description or
 * serialised form, not the run data n8n stores, not an output item, not a log line. Every failure
 * mode is run with a distinctive key, and a server that echoes the key back in its error replies
 * checks that the node redacts it.
 */
import {
	createServer as createHttpServer,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { startSandbox, type Faults, type Sandbox } from '../sandbox/server.cjs';
import {
	listBusinesses,
	runNode,
	type CrmCredentials,
	type RunResult,
} from '../helpers/harness.cjs';
import { byId, closedPort, credentialsFor } from '../helpers/fixtures.cjs';

/** The distinctive credential every failure runs with (where the sandbox need not accept it). */
const CANARY = 'crm-canary-7Qx2Lp9Vd4Rk8Zt3Wm6Hs1Nb5Jc0Fy';
/** The two halves of CANARY, for the credential that holds a line break between them. */
const CANARY_HEAD = CANARY.slice(0, 21);
const CANARY_TAIL = CANARY.slice(21);

/** Everything a run produced, as text, by where it came from. */
function producedBy(result: RunResult, logs: string[]): Record<string, string> {
	const error = result.error as (RunResult['error'] & { description?: string | null }) | undefined;
	return {
		'error.message': error?.message ?? '',
		'error.description': error?.description ?? '',
		'JSON of the error': JSON.stringify(error ?? null),
		'error.stack': error?.stack ?? '',
		'run data': JSON.stringify(result.run),
		'output items': JSON.stringify(result.items),
		'error output items': JSON.stringify(result.errorItems),
		logs: logs.join('\n'),
	};
}

/** Where each of `needles` appears in what the run produced; empty when nowhere. */
function leaks(produced: Record<string, string>, needles: string[]): string[] {
	const found: string[] = [];
	for (const [where, text] of Object.entries(produced)) {
		for (const needle of needles) {
			if (text.includes(needle)) found.push(`${where} holds ${JSON.stringify(needle)}`);
		}
	}
	return found;
}

/** Collects what the run writes to the console (n8n's logger included) while it runs. */
function captureLogs(): { lines: string[]; restore: () => void } {
	const lines: string[] = [];
	const keep = (...args: unknown[]) => {
		lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
	};
	const spies = [
		jest.spyOn(console, 'log').mockImplementation(keep),
		jest.spyOn(console, 'info').mockImplementation(keep),
		jest.spyOn(console, 'warn').mockImplementation(keep),
		jest.spyOn(console, 'error').mockImplementation(keep),
		jest.spyOn(console, 'debug').mockImplementation(keep),
		jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
			lines.push(String(chunk));
			return true;
		}),
	];
	return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}

interface Scenario {
	/** The credential; the API key is what must never show. */
	credentials: (s: Sandbox, port: number) => CrmCredentials;
	parameters: (s: Sandbox) => INodeParameters;
	faults?: Faults;
	/** How the error message starts: proof the failure really happened. */
	failure: string;
}

const getBusiness = (s: Sandbox, id = s.businesses[0].id): INodeParameters => ({
	resource: 'business',
	operation: 'get',
	businessId: byId(id),
});
const createCustomer = (s: Sandbox, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'customer',
	operation: 'create',
	businessId: byId(s.businesses[0].id),
	firstName: 'Ada',
	lastName: 'Lovelace',
	...extra,
});
const getBusinessOne: INodeParameters = {
	resource: 'business',
	operation: 'get',
	businessId: byId('biz_1'),
};
const allCustomers: INodeParameters = {
	resource: 'customer',
	operation: 'getAll',
	returnAll: true,
};
const withCanary = (s: Sandbox): CrmCredentials => ({ ...credentialsFor(s), apiKey: CANARY });
const withKey = (s: Sandbox): CrmCredentials => credentialsFor(s);

const SCENARIOS: Array<[string, Scenario]> = [
	[
		'400 (invalid email)',
		{
			credentials: withKey,
			parameters: (s) => createCustomer(s, { additionalFields: { email: 'nope' } }),
			failure: 'Create customer failed: the Business CRM API answered 400',
		},
	],
	[
		'401 (unknown key)',
		{
			credentials: withCanary,
			parameters: (s) => getBusiness(s),
			failure: 'Get business failed: the Business CRM API answered 401',
		},
	],
	[
		'403 (key of another organization)',
		{
			credentials: (s) => ({ ...credentialsFor(s), apiKey: s.otherOrgApiKey }),
			parameters: () => allCustomers,
			failure: 'Get many customers failed: the Business CRM API answered 403',
		},
	],
	[
		'403 (key without permission)',
		{
			credentials: (s) => ({ ...credentialsFor(s), apiKey: s.readOnlyApiKey }),
			parameters: (s) => createCustomer(s),
			failure: 'Create customer failed: the Business CRM API answered 403',
		},
	],
	[
		'404 (unknown business)',
		{
			credentials: withKey,
			parameters: (s) => getBusiness(s, 'biz_unknown'),
			failure: 'Get business failed: the Business CRM API answered 404',
		},
	],
	[
		'429, retries exhausted',
		{
			credentials: withCanary,
			parameters: (s) => ({ ...getBusiness(s), options: { maxRetryWait: 1 } }),
			faults: { rateLimitBurst: { retryAfter: 30, retryAfterHeader: true } },
			failure: 'Get business failed: the Business CRM API answered 429',
		},
	],
	[
		'500 on Create',
		{
			credentials: withCanary,
			parameters: (s) => createCustomer(s),
			faults: { serverError: {} },
			failure: 'Create customer failed: the Business CRM API answered 500',
		},
	],
	[
		'503 on a read, retries exhausted',
		{
			credentials: withCanary,
			parameters: () => ({ ...allCustomers, options: { maxRetries: 0 } }),
			faults: { serverError: { status: 503 } },
			failure: 'Get many customers failed: the Business CRM API answered 503',
		},
	],
	[
		'a reply that is not JSON',
		{
			credentials: withCanary,
			parameters: (s) => getBusiness(s),
			faults: { notJson: {} },
			failure:
				'Get business failed: the Business CRM API answered 200 with a body that is not JSON',
		},
	],
	[
		'an empty body',
		{
			credentials: withCanary,
			parameters: () => allCustomers,
			faults: { emptyBody: {} },
			failure: 'Get many customers failed: the Business CRM API answered 200 with an empty body',
		},
	],
	[
		'a timeout',
		{
			credentials: withCanary,
			parameters: (s) => ({ ...getBusiness(s), requestOptions: { timeout: 200 } }),
			faults: { slow: { delayMs: 500 } },
			failure: 'Get business failed: no answer within',
		},
	],
	[
		'a dropped connection on Create',
		{
			credentials: withCanary,
			parameters: (s) => createCustomer(s),
			faults: { dropConnection: {} },
			failure: 'Create customer failed: the connection was closed before the reply arrived',
		},
	],
	[
		'a refused connection',
		{
			credentials: (_s, port) => ({
				baseUrl: `http://127.0.0.1:${port}`,
				apiKey: CANARY,
				organizationId: 'org_canary',
			}),
			parameters: (s) => getBusiness(s),
			failure: 'Get business failed: the server refused the connection',
		},
	],
	[
		'runaway pagination',
		{
			credentials: withKey,
			parameters: () => allCustomers,
			faults: { hasMoreForever: true },
			failure: 'Get many customers failed: the API kept answering hasMore: true',
		},
	],
	[
		'a bad Limit',
		{
			credentials: withCanary,
			parameters: () => ({ resource: 'customer', operation: 'getAll', limit: 0 }),
			failure: 'Limit must be a whole number',
		},
	],
	[
		'a bad Base URL',
		{
			credentials: (s) => ({ ...withCanary(s), baseUrl: `ftp://127.0.0.1:${s.port}` }),
			parameters: (s) => getBusiness(s),
			failure: 'The Base URL in the Business CRM credential',
		},
	],
	[
		'an API key with a line break inside',
		{
			credentials: (s) => ({ ...credentialsFor(s), apiKey: `${CANARY_HEAD}\n${CANARY_TAIL}` }),
			parameters: (s) => getBusiness(s),
			failure: 'The API Key in the Business CRM credential contains a line break',
		},
	],
	[
		'an API key with a zero-width space inside',
		{
			credentials: (s) => ({ ...credentialsFor(s), apiKey: `${CANARY_HEAD}\u200b${CANARY_TAIL}` }),
			parameters: (s) => getBusiness(s),
			failure: 'The API Key in the Business CRM credential contains a zero-width space',
		},
	],
];

describe('The API key never appears in what the node produces', () => {
	let sandbox: Sandbox;
	let port: number;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2, customers: 150 });
		port = await closedPort();
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.clearLog();
		sandbox.resetFaults();
		sandbox.onRequest = undefined;
	});

	/** Every key in play: the distinctive one, its halves, and each key the sandbox knows. */
	const keys = () => [
		CANARY,
		CANARY_HEAD,
		CANARY_TAIL,
		sandbox.apiKey,
		sandbox.readOnlyApiKey,
		sandbox.otherOrgApiKey,
	];

	async function runCapturing(
		credentials: CrmCredentials,
		parameters: INodeParameters,
		onError?: 'continueRegularOutput',
	): Promise<{ result: RunResult; produced: Record<string, string> }> {
		const logs = captureLogs();
		let result: RunResult;
		try {
			result = await runNode({ credentials, parameters, onError });
		} finally {
			logs.restore();
		}
		return { result, produced: producedBy(result, logs.lines) };
	}

	it('in any failure mode, with or without Continue On Fail', async () => {
		const found: string[] = [];
		for (const [name, scenario] of SCENARIOS) {
			for (const onError of [undefined, 'continueRegularOutput'] as const) {
				sandbox.setFaults(scenario.faults ?? {});
				const { result, produced } = await runCapturing(
					scenario.credentials(sandbox, port),
					scenario.parameters(sandbox),
					onError,
				);
				const shown = onError ? String(result.items[0]?.json.error ?? '') : result.error?.message;
				// The failure really happened, as this scenario means it to.
				expect({ name, onError, shown: shown?.startsWith(scenario.failure) }).toEqual({
					name,
					onError,
					shown: true,
				});
				found.push(
					...leaks(produced, keys()).map((leak) => `${name}, ${onError ?? 'stop'}: ${leak}`),
				);
			}
		}
		expect(found).toEqual([]);
	});

	describe('a key the API echoes back is redacted', () => {
		/** What the echo server answers, given the key it received. */
		let reply: (key: string) => {
			status: number;
			type?: string;
			body: string;
			headers?: Record<string, string>;
		};
		let echo: Server;
		let echoUrl: string;
		beforeAll(async () => {
			echo = createHttpServer((req, res) => {
				const key = String(req.headers['x-api-key'] ?? '');
				const { status, type, body, headers } = reply(key);
				res.writeHead(status, {
					'content-type': type ?? 'application/json; charset=utf-8',
					...headers,
				});
				res.end(body);
			});
			await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
			echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
		});
		afterAll(async () => await new Promise<void>((resolve) => echo.close(() => resolve())));

		const echoCredentials = (): CrmCredentials => ({
			baseUrl: echoUrl,
			apiKey: CANARY,
			organizationId: 'org_echo',
		});

		it.each<
			[
				string,
				(key: string) => { status: number; type?: string; body: string },
				INodeParameters,
				string,
			]
		>([
			[
				'401 whose err names the key',
				(key) => ({
					status: 401,
					body: JSON.stringify({ message: 'Unauthorized', err: `key ${key} is revoked` }),
				}),
				getBusinessOne,
				'Get business failed: the Business CRM API answered 401 "Unauthorized: key [redacted] is revoked"',
			],
			[
				'403 whose message names the key',
				(key) => ({
					status: 403,
					body: JSON.stringify({ message: `API key ${key} is not allowed`, err: 'Forbidden' }),
				}),
				allCustomers,
				'Get many customers failed: the Business CRM API answered 403 "API key [redacted] is not allowed: Forbidden"',
			],
			[
				'429 whose err names the key',
				(key) => ({
					status: 429,
					body: JSON.stringify({
						message: 'Too Many Requests',
						err: `quota of ${key} used up`,
						retryAfter: 30,
					}),
				}),
				{ ...allCustomers, options: { maxRetryWait: 1 } },
				'Get many customers failed: the Business CRM API answered 429 "Too Many Requests: quota of [redacted] used up"',
			],
			[
				'500 on Create whose err names the key',
				(key) => ({
					status: 500,
					body: JSON.stringify({ message: 'Internal Server Error', err: `crash for ${key}` }),
				}),
				{
					resource: 'customer',
					operation: 'create',
					businessId: byId('biz_1'),
					firstName: 'Ada',
					lastName: 'Lovelace',
				},
				'Create customer failed: the Business CRM API answered 500 "Internal Server Error: crash for [redacted]"',
			],
			[
				'an HTML page that shows the key',
				(key) => ({ status: 200, type: 'text/html', body: `<p>Signed in with ${key}</p>` }),
				getBusinessOne,
				'Get business failed: the Business CRM API answered 200 with a body that is not JSON',
			],
			[
				'a list reply whose field is named after the key',
				(key) => ({ status: 200, body: JSON.stringify({ content: { [key]: [] } }) }),
				allCustomers,
				'Get many customers failed: the reply does not have the expected shape',
			],
		])('%s', async (_title, answer, parameters, message) => {
			reply = answer;
			for (const onError of [undefined, 'continueRegularOutput'] as const) {
				const { result, produced } = await runCapturing(echoCredentials(), parameters, onError);
				if (onError) {
					expect(String(result.items[0]?.json.error)).toMatch(new RegExp(`^${escape(message)}`));
				} else {
					expect(result.error?.message).toBe(message);
				}
				// The echoed key shows as [redacted] where the API's words are shown.
				expect(
					`${produced['error.message']} ${produced['error.description']} ${produced['output items']}`,
				).toContain('[redacted]');
				expect(leaks(produced, [CANARY])).toEqual([]);
			}
		});

		it('a Create reply whose Location header alone names the key: the output shows it redacted', async () => {
			reply = (key) => ({ status: 201, body: '', headers: { location: `/customers/${key}` } });
			const { result, produced } = await runCapturing(echoCredentials(), {
				resource: 'customer',
				operation: 'create',
				businessId: byId('biz_1'),
				firstName: 'Ada',
				lastName: 'Lovelace',
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0]?.json.location).toBe('/customers/[redacted]');
			expect(leaks(produced, [CANARY])).toEqual([]);
		});

		it('with a password in the Base URL, a reply that echoes only the key is still redacted', async () => {
			reply = (key) => ({
				status: 200,
				body: JSON.stringify({ id: 'biz_1', note: `seen ${key}` }),
			});
			const { result, produced } = await runCapturing(
				{ ...echoCredentials(), baseUrl: echoUrl.replace('//', '//crm:pass-Xq83vT@') },
				getBusinessOne,
			);
			expect(result.error).toBeUndefined();
			expect(result.items[0]?.json.note).toBe('seen [redacted]');
			expect(leaks(produced, [CANARY, 'pass-Xq83vT'])).toEqual([]);
		});

		it('the sandbox echoing the key in a 500 (via onRequest) is redacted too', async () => {
			sandbox.onRequest = (entry) => {
				throw new Error(`key ${entry.headers['x-api-key']} is revoked`);
			};
			const { result, produced } = await runCapturing(
				{ ...credentialsFor(sandbox), apiKey: CANARY },
				getBusiness(sandbox),
			);
			expect(sandbox.requests.map((request) => request.status)).toEqual([500]);
			expect(result.error?.message).toBe(
				'Get business failed: the Business CRM API answered 500 "Internal Server Error: Sandbox error: key [redacted] is revoked"',
			);
			expect(leaks(produced, [CANARY])).toEqual([]);
		});

		it('redacts only the key: an organization ID inside the API words and the ID typed stays', async () => {
			reply = () => ({
				status: 404,
				body: JSON.stringify({ message: 'Not Found', err: 'Business acme-bakery not found' }),
			});
			const { result } = await runCapturing(
				{ ...echoCredentials(), organizationId: 'acme' },
				{ resource: 'business', operation: 'get', businessId: byId('acme-bakery') },
			);
			expect(result.error?.message).toBe(
				'Get business failed: the Business CRM API answered 404 "Not Found: Business acme-bakery not found"',
			);
			expect(result.error?.description).toBe(
				'No business with ID "acme-bakery" was found in this organization. Check the ID, or pick the business from the list.',
			);
		});
	});
});

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An HTTP server on 127.0.0.1 that records every connection and request it gets. */
async function recordingServer(
	answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('{}'),
): Promise<{ url: string; port: number; seen: string[]; close: () => Promise<void> }> {
	const seen: string[] = [];
	const server = createHttpServer((req, res) => {
		seen.push(`${req.method} ${req.url} key=${String(req.headers['x-api-key'])}`);
		answer(req, res);
	});
	server.on('connection', () => seen.push('connection'));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		seen,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe('a redirect never takes the key to another host', () => {
	let elsewhere: Awaited<ReturnType<typeof recordingServer>>;
	let api: Awaited<ReturnType<typeof recordingServer>>;
	let status = 301;
	beforeAll(async () => {
		elsewhere = await recordingServer();
		api = await recordingServer((req, res) => {
			// Credentials and a query in the Location must not reach any message either.
			res.writeHead(status, {
				location: `http://mover:l0cation-pass@127.0.0.1:${elsewhere.port}${req.url}`,
			});
			res.end();
		});
	});
	afterAll(async () => {
		await api.close();
		await elsewhere.close();
	});
	beforeEach(() => {
		api.seen.length = 0;
		elsewhere.seen.length = 0;
	});

	const credentials = (): CrmCredentials => ({
		baseUrl: api.url,
		apiKey: CANARY,
		organizationId: 'org_redirect',
	});
	const operations: Array<[string, INodeParameters, string, string]> = [
		[
			'Create',
			{
				resource: 'customer',
				operation: 'create',
				businessId: byId('biz_1'),
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
			'Create customer',
			'/api/business/crm/customer/add',
		],
		['Business Get', getBusinessOne, 'Get business', '/api/business/biz_1'],
		[
			'Business Get Many',
			{ resource: 'business', operation: 'getAll', returnAll: true },
			'Get many businesses',
			'/api/business/list/all',
		],
		['Customer Get Many', allCustomers, 'Get many customers', '/api/public/v1/customers'],
	];

	describe.each([301, 302, 307, 308])('%i', (redirect) => {
		beforeEach(() => {
			status = redirect;
		});

		it.each(operations)(
			'%s: stops, names the new address, sends nothing there',
			async (_title, parameters, what, path) => {
				const logs = captureLogs();
				let result: RunResult;
				try {
					result = await runNode({ credentials: credentials(), parameters });
				} finally {
					logs.restore();
				}
				expect(elsewhere.seen).toEqual([]);
				expect(api.seen.filter((entry) => entry !== 'connection')).toHaveLength(1);
				const error = result.error as RunResult['error'] & { description?: string };
				expect(error?.message).toBe(
					`${what} failed: the Business CRM API answered ${redirect}, redirecting to http://127.0.0.1:${elsewhere.port}${path}`,
				);
				expect(error?.description).toMatch(
					new RegExp(
						`^${escape(`The node does not follow redirects, so the API key never goes to an address you did not enter. If the API has moved there, put http://127.0.0.1:${elsewhere.port} into the Base URL of the Business CRM credential.`)}`,
					),
				);
				expect(leaks(producedBy(result, logs.lines), [CANARY, 'l0cation-pass'])).toEqual([]);
			},
		);

		it('the business list search: stops with the same message, sends nothing there', async () => {
			await expect(listBusinesses(credentials())).rejects.toThrow(
				`List businesses failed: the Business CRM API answered ${redirect}, redirecting to http://127.0.0.1:${elsewhere.port}/api/business/list/all`,
			);
			expect(elsewhere.seen).toEqual([]);
		});
	});
});

describe('the key is redacted as it is sent, and in every output', () => {
	let echo: Awaited<ReturnType<typeof recordingServer>>;
	let answer: (key: string) => { status: number; body: unknown };
	beforeAll(async () => {
		echo = await recordingServer((req, res) => {
			const { status, body } = answer(String(req.headers['x-api-key'] ?? ''));
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		});
	});
	afterAll(async () => await echo.close());
	beforeEach(() => {
		echo.seen.length = 0;
	});

	const withKey = (apiKey: string): CrmCredentials => ({
		baseUrl: echo.url,
		apiKey,
		organizationId: 'org_echo',
	});

	it.each([
		[
			'a zero-width space',
			`${CANARY_HEAD}\u200b${CANARY_TAIL}`,
			'a zero-width space (U+200B) at position 22',
		],
		[
			'a no-break space',
			`${CANARY_HEAD}\u00a0${CANARY_TAIL}`,
			'a no-break space (U+00A0) at position 22',
		],
		[
			'a byte order mark',
			`${CANARY_HEAD}\ufeff${CANARY_TAIL}`,
			'a byte order mark (U+FEFF) at position 22',
		],
		['a space', `${CANARY_HEAD} ${CANARY_TAIL}`, 'a space (U+0020) at position 22'],
		[
			'an accented letter',
			`${CANARY_HEAD}é${CANARY_TAIL}`,
			'the non-ASCII character "é" (U+00E9) at position 22',
		],
	])(
		'a key holding %s is refused before anything is sent, with where it is',
		async (_title, apiKey, where) => {
			answer = (key) => ({ status: 401, body: { message: 'Unauthorized', err: `bad key ${key}` } });
			for (const onError of [undefined, 'continueRegularOutput'] as const) {
				const result = await runNode({
					credentials: withKey(apiKey),
					parameters: getBusinessOne,
					onError,
				});
				const shown = onError ? String(result.items[0]?.json.error) : result.error?.message;
				expect(shown).toMatch(
					new RegExp(`^${escape(`The API Key in the Business CRM credential contains ${where}`)}`),
				);
				expect(leaks(producedBy(result, []), [CANARY_HEAD, CANARY_TAIL])).toEqual([]);
			}
			expect(echo.seen).toEqual([]);
		},
	);

	it('a key too short to be one is refused before anything is sent', async () => {
		answer = () => ({ status: 200, body: { content: { business: { id: 'biz_1' } } } });
		const result = await runNode({ credentials: withKey('k3y'), parameters: getBusinessOne });
		expect(result.error?.message).toBe(
			'The API Key in the Business CRM credential has only 3 characters, too few for an API key',
		);
		expect(echo.seen).toEqual([]);
	});

	it.each<[string, INodeParameters, (key: string) => unknown]>([
		[
			'Business Get',
			getBusinessOne,
			(key) => ({ content: { business: { id: 'biz_1', note: `seen with ${key}`, [key]: true } } }),
		],
		[
			'Customer Get Many',
			{ resource: 'customer', operation: 'getAll', limit: 2 },
			(key) => ({
				content: {
					customers: [{ id: 'cust_1', tags: [`key:${key}`] }],
					pagination: { total: 1, limit: 2, offset: 0, hasMore: false },
				},
			}),
		],
		[
			'Create',
			{
				resource: 'customer',
				operation: 'create',
				businessId: byId('biz_1'),
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
			(key) => ({ content: { customer: { id: 'cust_2', createdBy: key } } }),
		],
	])(
		'%s: a success reply that echoes the key is output with [redacted]',
		async (_title, parameters, reply) => {
			answer = (key) => ({ status: 200, body: reply(key) });
			const result = await runNode({ credentials: withKey(CANARY), parameters });
			expect(result.error).toBeUndefined();
			expect(JSON.stringify(result.items)).toContain('[redacted]');
			expect(leaks(producedBy(result, []), [CANARY])).toEqual([]);
		},
	);

	it('the list search redacts an echoed key in business names', async () => {
		answer = (key) => ({ status: 200, body: [{ id: 'biz_1', name: `Shop of ${key}` }] });
		const { results } = await listBusinesses(withKey(CANARY));
		expect(results).toEqual([{ name: 'Shop of [redacted]', value: 'biz_1' }]);
	});
});

describe('a password in the Base URL is never shown', () => {
	const PASSWORD = 'pa55-in-the-url';

	it('not when the Base URL is refused', async () => {
		const result = await runNode({
			credentials: {
				baseUrl: `ftp://someone:${PASSWORD}@127.0.0.1:9/`,
				apiKey: CANARY,
				organizationId: 'org_1',
			},
			parameters: getBusinessOne,
		});
		expect(result.error?.message).toBe(
			'The Base URL in the Business CRM credential "ftp://someone@127.0.0.1:9/" does not start with http:// or https://. Enter the API address only, e.g. https://api.example.com',
		);
		expect(leaks(producedBy(result, []), [PASSWORD, CANARY])).toEqual([]);
	});

	it('not when the API echoes the basic auth it received', async () => {
		const api = await recordingServer((req, res) => {
			res.writeHead(401, { 'content-type': 'application/json' });
			const basic = Buffer.from(
				String(req.headers.authorization ?? '').replace(/^Basic /, ''),
				'base64',
			).toString();
			res.end(JSON.stringify({ message: 'Unauthorized', err: `no user ${basic}` }));
		});
		try {
			const result = await runNode({
				credentials: {
					baseUrl: api.url.replace('http://', `http://someone:${PASSWORD}@`),
					apiKey: CANARY,
					organizationId: 'org_1',
				},
				parameters: getBusinessOne,
			});
			expect(result.error?.message).toBe(
				'Get business failed: the Business CRM API answered 401 "Unauthorized: no user someone:[redacted]"',
			);
			expect(leaks(producedBy(result, []), [PASSWORD, CANARY])).toEqual([]);
		} finally {
			await api.close();
		}
	});
});
