/**
 * The API key never reaches anything the node produces: not an error's message, description or
 * serialised form, not the run data n8n stores, not an output item, not a log line. Every failure
 * mode is run with a distinctive key, and a server that echoes the key back in its error replies
 * checks that the node redacts it.
 */
import type { INodeParameters } from 'n8n-workflow';
import { DROPPED, NO_REDIRECTS, REFUSED } from '../../nodes/BusinessCrm/api/failures';
import { PAST_TOTAL } from '../../nodes/BusinessCrm/api/listReader';
import { UNEXPECTED_SHAPE } from '../../nodes/BusinessCrm/api/lists';
import { EMPTY_REPLY, NOT_JSON_REPLY } from '../../nodes/BusinessCrm/api/reply';
import { EXAMPLE } from '../../nodes/BusinessCrm/credential/baseUrl';
import { IN_CREDENTIAL } from '../../nodes/BusinessCrm/credential/credential';
import { API_ANSWERED } from '../../nodes/BusinessCrm/errors/errors';
import { CHECK_THE_ID } from '../../nodes/BusinessCrm/resources/business/get';
import { startSandbox, type Faults, type Sandbox } from '../sandbox/server.cjs';
import {
	listBusinesses,
	producedBy,
	runEachWay,
	runNode,
	type CrmCredentials,
	type RunResult,
} from '../helpers/harness.cjs';
import {
	answered,
	basicAuthOf,
	closedPort,
	createAda,
	credentialsFor,
	echoing,
	failed,
	getBusinessOf,
	type Echo,
} from '../helpers/fixtures.cjs';
import { startApi, type ScriptedApi } from '../helpers/scripted-api.cjs';

/** The distinctive credential every failure runs with (where the sandbox need not accept it). */
const CANARY = 'crm-canary-7Qx2Lp9Vd4Rk8Zt3Wm6Hs1Nb5Jc0Fy';
/** The two halves of CANARY, for the credential that holds a line break between them. */
const CANARY_HEAD = CANARY.slice(0, 21);
const CANARY_TAIL = CANARY.slice(21);

/** What each operation's errors say it was doing. */
const GET = 'Get business';
const CREATE = 'Create customer';
const MANY = 'Get many customers';

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

/** Runs `run`, collecting what it writes to the console (n8n's logger included) meanwhile. */
async function capturing<T>(run: () => Promise<T>): Promise<{ value: T; logs: string[] }> {
	const logs: string[] = [];
	const keep = (...args: unknown[]) => {
		logs.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
	};
	const spies = [
		jest.spyOn(console, 'log').mockImplementation(keep),
		jest.spyOn(console, 'info').mockImplementation(keep),
		jest.spyOn(console, 'warn').mockImplementation(keep),
		jest.spyOn(console, 'error').mockImplementation(keep),
		jest.spyOn(console, 'debug').mockImplementation(keep),
		jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
			logs.push(String(chunk));
			return true;
		}),
	];
	try {
		return { value: await run(), logs };
	} finally {
		spies.forEach((spy) => spy.mockRestore());
	}
}

/** The user sees `message`: as the error, or, with Continue On Fail, at the start of the item's. */
function expectShown(shown: string, onError: string | undefined, message: string): void {
	expect(onError ? shown.slice(0, message.length) : shown).toBe(message);
}

const getBusinessOne = getBusinessOf();
const allCustomers: INodeParameters = {
	resource: 'customer',
	operation: 'getAll',
	returnAll: true,
};
const createOne = createAda();

type Credentials = (s: Sandbox, port: number) => CrmCredentials;
type Parameters = (s: Sandbox) => INodeParameters;

const withKey: Credentials = (s) => credentialsFor(s);
const withApiKey =
	(apiKey: (s: Sandbox) => string): Credentials =>
	(s) => ({ ...credentialsFor(s), apiKey: apiKey(s) });
const withCanary = withApiKey(() => CANARY);
const otherOrg = withApiKey((s) => s.otherOrgApiKey);
const readOnly = withApiKey((s) => s.readOnlyApiKey);
const lineBreak = withApiKey(() => `${CANARY_HEAD}\n${CANARY_TAIL}`);
const zeroWidth = withApiKey(() => `${CANARY_HEAD}\u200b${CANARY_TAIL}`);
const ftpUrl: Credentials = (s) => ({ ...withCanary(s, 0), baseUrl: `ftp://127.0.0.1:${s.port}` });
const closed: Credentials = (_s, port) => ({
	baseUrl: `http://127.0.0.1:${port}`,
	apiKey: CANARY,
	organizationId: 'org_canary',
});

const get: Parameters = (s) => getBusinessOf(s.businesses[0].id);
const unknown: Parameters = () => getBusinessOf('biz_unknown');
const create: Parameters = (s) => createAda(s.businesses[0].id);
const badEmail: Parameters = (s) => ({ ...create(s), additionalFields: { email: 'nope' } });
const many: Parameters = () => allCustomers;
const oneTry: Parameters = () => ({ ...allCustomers, options: { maxRetries: 0 } });
const oneSecond: Parameters = (s) => ({ ...get(s), options: { maxRetryWait: 1 } });
const timeout: Parameters = (s) => ({ ...get(s), requestOptions: { timeout: 200 } });
const noLimit: Parameters = () => ({ resource: 'customer', operation: 'getAll', limit: 0 });

const BURST: Faults = { rateLimitBurst: { retryAfter: 30, retryAfterHeader: true } };
const UNAVAILABLE: Faults = { serverError: { status: 503 } };
const SLOW: Faults = { slow: { delayMs: 500 } };
const NOT_JSON: Faults = { notJson: {} };
const DROP: Faults = { dropConnection: {} };
/** How the error for a key holding a character no header can carry starts. */
const KEY_HOLDS = `The API Key ${IN_CREDENTIAL} contains`;

/** Each failure: the credential, the parameters, how the error starts, and the API's faults. */
const SCENARIOS: Array<[string, Credentials, Parameters, string, Faults?]> = [
	['400 (invalid email)', withKey, badEmail, answered(CREATE, 400)],
	['401 (unknown key)', withCanary, get, answered(GET, 401)],
	['403 (key of another organization)', otherOrg, many, answered(MANY, 403)],
	['403 (key without permission)', readOnly, create, answered(CREATE, 403)],
	['404 (unknown business)', withKey, unknown, answered(GET, 404)],
	['429, retries exhausted', withCanary, oneSecond, answered(GET, 429), BURST],
	['500 on Create', withCanary, create, answered(CREATE, 500), { serverError: {} }],
	['503 on a read, retries exhausted', withCanary, oneTry, answered(MANY, 503), UNAVAILABLE],
	['a reply that is not JSON', withCanary, get, answered(GET, 200, NOT_JSON_REPLY), NOT_JSON],
	['an empty body', withCanary, many, answered(MANY, 200, EMPTY_REPLY), { emptyBody: {} }],
	['a timeout', withCanary, timeout, failed(GET, 'no answer within'), SLOW],
	['a dropped connection on Create', withCanary, create, failed(CREATE, DROPPED), DROP],
	['a refused connection', closed, get, failed(GET, REFUSED)],
	['runaway pagination', withKey, many, failed(MANY, PAST_TOTAL), { hasMoreForever: true }],
	['a bad Limit', withCanary, noLimit, 'Limit must be a whole number'],
	['a bad Base URL', ftpUrl, get, `The Base URL ${IN_CREDENTIAL}`],
	['an API key with a line break inside', lineBreak, get, `${KEY_HOLDS} a line break`],
	['an API key with a zero-width space inside', zeroWidth, get, `${KEY_HOLDS} a zero-width space`],
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

	it('in any failure mode, with or without Continue On Fail', async () => {
		const found: string[] = [];
		for (const [name, credentials, parameters, failure, faults = {}] of SCENARIOS) {
			sandbox.setFaults(faults);
			const { value: runs, logs } = await capturing(
				async () =>
					await runEachWay({
						credentials: credentials(sandbox, port),
						parameters: parameters(sandbox),
					}),
			);
			for (const { onError, result, shown } of runs) {
				// The failure really happened, as this scenario means it to.
				expect({ name, onError, shown: shown.startsWith(failure) }).toEqual({
					name,
					onError,
					shown: true,
				});
				const leaked = leaks(producedBy(result, logs), keys());
				found.push(...leaked.map((leak) => `${name}, ${onError ?? 'stop'}: ${leak}`));
			}
		}
		expect(found).toEqual([]);
	});

	describe('a key the API echoes back is redacted', () => {
		/** What the echo server answers, given the key it received. */
		let reply: (key: string) => Echo;
		let echo: ScriptedApi;
		beforeAll(async () => {
			echo = await startApi(echoing((key) => reply(key)));
		});
		afterAll(async () => await echo.close());

		const echoCredentials = (): CrmCredentials => ({
			baseUrl: echo.url,
			apiKey: CANARY,
			organizationId: 'org_echo',
		});
		const words = (message: string, err: string) => JSON.stringify({ message, err });

		it.each<[string, (key: string) => Echo, INodeParameters, string]>([
			[
				'401 whose err names the key',
				(key) => ({ status: 401, body: words('Unauthorized', `key ${key} is revoked`) }),
				getBusinessOne,
				answered(GET, 401, '"Unauthorized: key [redacted] is revoked"'),
			],
			[
				'403 whose message names the key',
				(key) => ({ status: 403, body: words(`API key ${key} is not allowed`, 'Forbidden') }),
				allCustomers,
				answered(MANY, 403, '"API key [redacted] is not allowed: Forbidden"'),
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
				answered(MANY, 429, '"Too Many Requests: quota of [redacted] used up"'),
			],
			[
				'500 on Create whose err names the key',
				(key) => ({ status: 500, body: words('Internal Server Error', `crash for ${key}`) }),
				createOne,
				answered(CREATE, 500, '"Internal Server Error: crash for [redacted]"'),
			],
			[
				'an HTML page that shows the key',
				(key) => ({ status: 200, type: 'text/html', body: `<p>Signed in with ${key}</p>` }),
				getBusinessOne,
				answered(GET, 200, NOT_JSON_REPLY),
			],
			[
				'a list reply whose field is named after the key',
				(key) => ({ status: 200, body: JSON.stringify({ content: { [key]: [] } }) }),
				allCustomers,
				failed(MANY, UNEXPECTED_SHAPE),
			],
		])('%s', async (_title, answer, parameters, message) => {
			reply = answer;
			const { value: runs, logs } = await capturing(
				async () => await runEachWay({ credentials: echoCredentials(), parameters }),
			);
			for (const { onError, result, shown } of runs) {
				expectShown(shown, onError, message);
				const produced = producedBy(result, logs);
				// The echoed key shows as [redacted] where the API's words are shown.
				expect(
					`${produced['error.message']} ${produced['error.description']} ${produced['output items']}`,
				).toContain('[redacted]');
				expect(leaks(produced, [CANARY])).toEqual([]);
			}
		});

		it('a Create reply whose Location header alone names the key: the output shows it redacted', async () => {
			reply = (key) => ({ status: 201, body: '', headers: { location: `/customers/${key}` } });
			const { value: result, logs } = await capturing(
				async () => await runNode({ credentials: echoCredentials(), parameters: createOne }),
			);
			expect(result.error).toBeUndefined();
			expect(result.items[0]?.json.location).toBe('/customers/[redacted]');
			expect(leaks(producedBy(result, logs), [CANARY])).toEqual([]);
		});

		it('with a password in the Base URL, a reply that echoes only the key is still redacted', async () => {
			reply = (key) => ({
				status: 200,
				body: JSON.stringify({ id: 'biz_1', note: `seen ${key}` }),
			});
			const credentials = {
				...echoCredentials(),
				baseUrl: echo.url.replace('//', '//crm:pass-Xq83vT@'),
			};
			const { value: result, logs } = await capturing(
				async () => await runNode({ credentials, parameters: getBusinessOne }),
			);
			expect(result.error).toBeUndefined();
			expect(result.items[0]?.json.note).toBe('seen [redacted]');
			expect(leaks(producedBy(result, logs), [CANARY, 'pass-Xq83vT'])).toEqual([]);
		});

		it('the sandbox echoing the key in a 500 (via onRequest) is redacted too', async () => {
			sandbox.onRequest = (entry) => {
				throw new Error(`key ${entry.headers['x-api-key']} is revoked`);
			};
			const { value: result, logs } = await capturing(
				async () =>
					await runNode({ credentials: withCanary(sandbox, port), parameters: get(sandbox) }),
			);
			expect(sandbox.requests.map((request) => request.status)).toEqual([500]);
			expect(result.error?.message).toBe(
				answered(GET, 500, '"Internal Server Error: Sandbox error: key [redacted] is revoked"'),
			);
			expect(leaks(producedBy(result, logs), [CANARY])).toEqual([]);
		});

		it('redacts only the key: an organization ID inside the API words and the ID typed stays', async () => {
			reply = () => ({ status: 404, body: words('Not Found', 'Business acme-bakery not found') });
			const { error } = await runNode({
				credentials: { ...echoCredentials(), organizationId: 'acme' },
				parameters: getBusinessOf('acme-bakery'),
			});
			expect(error?.message).toBe(
				answered(GET, 404, '"Not Found: Business acme-bakery not found"'),
			);
			expect(error?.description).toBe(
				`No business with ID "acme-bakery" was found in this organization. ${CHECK_THE_ID}`,
			);
		});
	});
});

describe('a redirect never takes the key to another host', () => {
	let elsewhere: ScriptedApi;
	let api: ScriptedApi;
	let status = 301;
	beforeAll(async () => {
		elsewhere = await startApi();
		api = await startApi((request, _url, response) => {
			// Credentials and a query in the Location must not reach any message either.
			response.writeHead(status, {
				location: `http://mover:l0cation-pass@127.0.0.1:${elsewhere.port}${request.url}`,
			});
			response.end();
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
	/** The node's message for a redirect to `path` on the other host, without its password. */
	const redirected = (what: string, redirect: number, path: string) =>
		failed(what, `${API_ANSWERED} ${redirect}, redirecting to ${elsewhere.url}${path}`);

	describe.each([301, 302, 307, 308])('%i', (redirect) => {
		beforeEach(() => {
			status = redirect;
		});

		it.each<[string, INodeParameters, string, string]>([
			['Create', createOne, CREATE, '/api/business/crm/customer/add'],
			['Business Get', getBusinessOne, GET, '/api/business/biz_1'],
			[
				'Business Get Many',
				{ resource: 'business', operation: 'getAll', returnAll: true },
				'Get many businesses',
				'/api/business/list/all',
			],
			['Customer Get Many', allCustomers, MANY, '/api/public/v1/customers'],
		])(
			'%s: stops, names the new address, sends nothing there',
			async (_title, parameters, what, path) => {
				const { value: result, logs } = await capturing(
					async () => await runNode({ credentials: credentials(), parameters }),
				);
				expect(elsewhere.seen).toEqual([]);
				expect(api.seen.filter((entry) => entry !== 'connection')).toHaveLength(1);
				const error = result.error as RunResult['error'] & { description?: string };
				expect(error?.message).toBe(redirected(what, redirect, path));
				expect(error?.description?.startsWith(NO_REDIRECTS)).toBe(true);
				expect(error?.description).toContain(
					`If the API has moved there, put ${elsewhere.url} into the Base URL`,
				);
				expect(leaks(producedBy(result, logs), [CANARY, 'l0cation-pass'])).toEqual([]);
			},
		);

		it('the business list search: stops with the same message, sends nothing there', async () => {
			await expect(listBusinesses(credentials())).rejects.toThrow(
				redirected('List businesses', redirect, '/api/business/list/all'),
			);
			expect(elsewhere.seen).toEqual([]);
		});
	});
});

describe('the key is redacted as it is sent, and in every output', () => {
	let echo: ScriptedApi;
	let answer: (key: string) => { status: number; body: unknown };
	beforeAll(async () => {
		echo = await startApi(
			echoing((key) => {
				const { status, body } = answer(key);
				return { status, body: JSON.stringify(body) };
			}),
		);
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
		['a zero-width space', '\u200b', 'a zero-width space (U+200B) at position 22'],
		['a no-break space', '\u00a0', 'a no-break space (U+00A0) at position 22'],
		['a byte order mark', '\ufeff', 'a byte order mark (U+FEFF) at position 22'],
		['a space', ' ', 'a space (U+0020) at position 22'],
		['an accented letter', 'é', 'the non-ASCII character "é" (U+00E9) at position 22'],
	])(
		'a key holding %s is refused before anything is sent, with where it is',
		async (_title, inside, where) => {
			answer = (key) => ({ status: 401, body: { message: 'Unauthorized', err: `bad key ${key}` } });
			const apiKey = `${CANARY_HEAD}${inside}${CANARY_TAIL}`;
			const runs = await runEachWay({ credentials: withKey(apiKey), parameters: getBusinessOne });
			for (const { onError, result, shown } of runs) {
				expectShown(shown, onError, `${KEY_HOLDS} ${where}`);
				expect(leaks(producedBy(result), [CANARY_HEAD, CANARY_TAIL])).toEqual([]);
			}
			expect(echo.seen).toEqual([]);
		},
	);

	it('a key too short to be one is refused before anything is sent', async () => {
		answer = () => ({ status: 200, body: { content: { business: { id: 'biz_1' } } } });
		const result = await runNode({ credentials: withKey('k3y'), parameters: getBusinessOne });
		expect(result.error?.message).toBe(
			`The API Key ${IN_CREDENTIAL} has only 3 characters, too few for an API key`,
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
		['Create', createOne, (key) => ({ content: { customer: { id: 'cust_2', createdBy: key } } })],
	])(
		'%s: a success reply that echoes the key is output with [redacted]',
		async (_title, parameters, reply) => {
			answer = (key) => ({ status: 200, body: reply(key) });
			const result = await runNode({ credentials: withKey(CANARY), parameters });
			expect(result.error).toBeUndefined();
			expect(JSON.stringify(result.items)).toContain('[redacted]');
			expect(leaks(producedBy(result), [CANARY])).toEqual([]);
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
	const withPassword = (baseUrl: string): CrmCredentials => ({
		baseUrl,
		apiKey: CANARY,
		organizationId: 'org_1',
	});

	it('not when the Base URL is refused', async () => {
		const result = await runNode({
			credentials: withPassword(`ftp://someone:${PASSWORD}@127.0.0.1:9/`),
			parameters: getBusinessOne,
		});
		expect(result.error?.message).toBe(
			`The Base URL ${IN_CREDENTIAL} "ftp://someone@127.0.0.1:9/" does not start with http:// or https://.${EXAMPLE}`,
		);
		expect(leaks(producedBy(result), [PASSWORD, CANARY])).toEqual([]);
	});

	it('not when the API echoes the basic auth it received', async () => {
		const api = await startApi(
			echoing((_key, request) => ({
				status: 401,
				body: JSON.stringify({ message: 'Unauthorized', err: `no user ${basicAuthOf(request)}` }),
			})),
		);
		try {
			const result = await runNode({
				credentials: withPassword(api.url.replace('http://', `http://someone:${PASSWORD}@`)),
				parameters: getBusinessOne,
			});
			expect(result.error?.message).toBe(
				answered(GET, 401, '"Unauthorized: no user someone:[redacted]"'),
			);
			expect(leaks(producedBy(result), [PASSWORD, CANARY])).toEqual([]);
		} finally {
			await api.close();
		}
	});
});
