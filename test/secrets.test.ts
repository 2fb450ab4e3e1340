/**
 * The API key never reaches anything the node produces: not an error's message, description or
 * serialised form, not the run data n8n stores, not an output item, not a log line. Every failure
 * mode is run with a distinctive key, and a server that echoes the key back in its error replies
 * checks that the node redacts it.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { startSandbox, type Faults, type Sandbox } from './sandbox/server';
import { runNode, type CrmCredentials, type RunResult } from './helpers/harness';
import { byId, credentialsFor } from './helpers/fixtures';

/** The distinctive credential every failure runs with (where the sandbox need not accept it). */
const CANARY = 'crm-canary-7Qx2Lp9Vd4Rk8Zt3Wm6Hs1Nb5Jc0Fy';
/** The two halves of CANARY, for the credential that holds a line break between them. */
const CANARY_HEAD = CANARY.slice(0, 21);
const CANARY_TAIL = CANARY.slice(21);

async function closedPort(): Promise<number> {
	const server = createNetServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

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
		let reply: (key: string) => { status: number; type?: string; body: string };
		let echo: Server;
		let echoUrl: string;
		beforeAll(async () => {
			echo = createHttpServer((req, res) => {
				const key = String(req.headers['x-api-key'] ?? '');
				const { status, type, body } = reply(key);
				res.writeHead(status, { 'content-type': type ?? 'application/json; charset=utf-8' });
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
