/**
 * One road to the API: every request of the package, whichever operation, check, search or poll
 * builds it, keeps the same promises. The credential's Allowed Domains are obeyed before anything
 * is sent; a request that never answers, or trickles its reply, ends at its deadline; Retry On
 * Fail reads again; a list that moves under a read never makes Skip Existing create a customer
 * that was there throughout, nor Find miss one. Real HTTP to servers on 127.0.0.1.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { POLL_DEADLINE_MS } from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { listBusinesses, runNode, type CrmCredentials } from '../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo } from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';
import { clock, fastClock } from '../helpers/clock.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const CREATE = '/api/business/crm/customer/add';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ businesses: 2, customers: 150 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.seedCustomers(150);
	sandbox.resetFaults();
	sandbox.onRequest = undefined;
	sandbox.clearLog();
});

const getManyOfBusiness = (id: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'customer',
	operation: 'getAll',
	returnAll: true,
	filters: { businessId: byId(id) },
	...extra,
});

const findByEmail = (email: string): INodeParameters => ({
	resource: 'customer',
	operation: 'find',
	findBy: 'email',
	email,
});

const createSkippingExisting = (email: string, businessId: string): INodeParameters => ({
	resource: 'customer',
	operation: 'create',
	businessId: byId(businessId),
	firstName: 'Ada',
	lastName: 'Lovelace',
	additionalFields: { email },
	skipExisting: true,
});

describe("the credential's Allowed Domains are obeyed on every road, before anything is sent", () => {
	const restricted = (allowedDomains: string): CrmCredentials => ({
		...credentialsFor(sandbox),
		allowedHttpRequestDomains: 'domains',
		allowedDomains,
	});
	const refusal = `The Base URL's host 127.0.0.1 is not among the Allowed Domains of the Business CRM credential (api.example.com, *.example.org), so the node sends nothing`;
	const fix =
		'Open the credential and add 127.0.0.1 to Allowed Domains, or set Allowed HTTP Request Domains to All.';
	const roads: Array<[string, () => INodeParameters]> = [
		[
			'Business › Get',
			() => ({
				resource: 'business',
				operation: 'get',
				businessId: byId(sandbox.businesses[0].id),
			}),
		],
		['Business › Get Many', () => ({ resource: 'business', operation: 'getAll', returnAll: true })],
		[
			'Customer › Get Many with Filters › Business (the business check)',
			() => getManyOfBusiness(sandbox.businesses[0].id),
		],
		['Customer › Find (the list read)', () => findByEmail(String(sandbox.customers[0].email))],
		[
			'Customer › Create with Skip Existing',
			() => createSkippingExisting('new@example.com', sandbox.businesses[0].id),
		],
	];

	it.each(roads)(
		'%s: refused with what to change, and the API sees no request',
		async (_road, parameters) => {
			const { error } = await runNode({
				credentials: restricted('api.example.com, *.example.org'),
				parameters: parameters(),
			});
			expect(error?.message).toBe(refusal);
			expect((error as Error & { description?: string }).description).toBe(fix);
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('the business list search: refused, and the API sees no request', async () => {
		await expect(listBusinesses(restricted('api.example.com, *.example.org'))).rejects.toThrow(
			refusal,
		);
		expect(sandbox.requests).toEqual([]);
	});

	it.each([
		['without Options › Business', {}],
		['with Options › Business (the business check)', { options: { businessId: 'BIZ' } }],
	])(
		'the trigger %s: the activation fails with the refusal, and the API sees no request',
		async (_title, parameters) => {
			const options = JSON.parse(
				JSON.stringify(parameters).replace('BIZ', sandbox.businesses[0].id),
			) as INodeParameters;
			const trigger = new TriggerHarness(restricted('api.example.com, *.example.org'), options);
			const outcome = await trigger.activate();
			expect(outcome.error?.message).toBe(refusal);
			expect(trigger.nodeStaticData()).toEqual({});
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('Specific Domains with an empty list: refused on every road, and the API sees no request', async () => {
		const credentials = restricted('  ');
		// On the operations' road n8n 2.41's RoutingNode refuses first, in its own words.
		const { error } = await runNode({ credentials, parameters: findByEmail('a@example.com') });
		expect(error?.message).toMatch(
			/^(No allowed domains specified|The Business CRM credential allows Specific Domains but lists none)/,
		);
		const trigger = new TriggerHarness(credentials);
		expect((await trigger.activate()).error?.message).toBe(
			'The Business CRM credential allows Specific Domains but lists none, so the node sends nothing',
		);
		await expect(listBusinesses(credentials)).rejects.toThrow(
			'The Business CRM credential allows Specific Domains but lists none, so the node sends nothing',
		);
		expect(sandbox.requests).toEqual([]);
	});

	it.each([
		['the host itself', '127.0.0.1'],
		['the host among others, in capitals, with a trailing dot', 'api.example.com, 127.0.0.1.'],
	])('a list naming %s lets every request through', async (_title, allowedDomains) => {
		const { items, error } = await runNode({
			credentials: restricted(allowedDomains),
			parameters: getManyOfBusiness(sandbox.businesses[0].id),
		});
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
	});

	it('a host is matched whole, not by how it ends: 27.0.0.1 does not allow 127.0.0.1', async () => {
		const { error } = await runNode({
			credentials: restricted('27.0.0.1'),
			parameters: findByEmail('nobody@example.com'),
		});
		expect(error?.message).toMatch(/^The Base URL's host 127\.0\.0\.1 is not among/);
		expect(sandbox.requests).toEqual([]);
	});

	it('a wildcard matches the hosts under a domain, never the domain itself', async () => {
		const wildcard = await runNode({
			credentials: { ...restricted('*.0.0.1'), baseUrl: sandbox.url },
			parameters: findByEmail('nobody@example.com'),
		});
		expect(wildcard.error).toBeUndefined();
		sandbox.clearLog();
		const { error } = await runNode({
			credentials: { ...restricted('*.127.0.0.1'), baseUrl: sandbox.url },
			parameters: findByEmail('nobody@example.com'),
		});
		expect(error?.message).toMatch(/^The Base URL's host 127\.0\.0\.1 is not among/);
		expect(sandbox.requests).toEqual([]);
	});

	it('"None" keeps the credential out of the HTTP Request node, not out of its own node (as n8n 2.41 does)', async () => {
		const { error } = await runNode({
			credentials: { ...credentialsFor(sandbox), allowedHttpRequestDomains: 'none' },
			parameters: findByEmail('nobody@example.com'),
		});
		expect(error).toBeUndefined();
	});
});

/**
 * How long a case whose server never ends its reply may run: each ends in about a second, so a
 * deadline that no longer fires fails here, not at jest's 60 s (and a mutation run stays short).
 */
const HANG_BOUND_MS = 10_000;

/** A server that accepts every request and then answers as `answer` says (or never). */
async function startStubbornApi(
	answer: (response: ServerResponse, path: string, query: URLSearchParams) => void,
) {
	const sockets = new Set<Socket>();
	const seen: string[] = [];
	const server: Server = createServer((request, response) => {
		seen.push(request.url ?? '');
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		answer(response, url.pathname, url.searchParams);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		seen,
		credentials: { ...credentialsFor(sandbox), baseUrl: url },
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** Headers and the start of a JSON body at once, then one space every 50 ms, never the end. */
function trickle(response: ServerResponse): void {
	response.writeHead(200, { 'content-type': 'application/json' });
	response.write('{"content":');
	const drip = setInterval(() => {
		if (response.destroyed) clearInterval(drip);
		else response.write(' ');
	}, 50);
	response.on('close', () => clearInterval(drip));
}

describe('a request that never answers, or trickles its reply, ends at its deadline on every road', () => {
	it.each([
		['never answers', () => undefined],
		['trickles its reply', trickle],
	])(
		'the business check of Filters › Business, whose API %s, ends at Request Options › Timeout',
		async (_title, answer) => {
			const api = await startStubbornApi((response) => answer(response));
			try {
				const started = Date.now();
				const { error } = await runNode({
					credentials: api.credentials,
					parameters: getManyOfBusiness('biz_1', { requestOptions: { timeout: 500 } }),
				});
				expect(Date.now() - started).toBeLessThan(4_000);
				expect(error?.message).toBe('Check the business failed: no answer within 0.5 s');
				expect(api.seen).toEqual(['/api/business/biz_1']);
			} finally {
				await api.close();
			}
		},
		HANG_BOUND_MS,
	);

	it(
		'a trickled list page of Get Many ends at Request Options › Timeout, not at the idle timeout',
		async () => {
			const api = await startStubbornApi((response) => trickle(response));
			try {
				const started = Date.now();
				const { error } = await runNode({
					credentials: api.credentials,
					parameters: {
						resource: 'customer',
						operation: 'getAll',
						returnAll: true,
						requestOptions: { timeout: 1_000 },
					},
				});
				expect(Date.now() - started).toBeLessThan(5_000);
				expect(error?.message).toBe('Get many customers failed: no answer within 1 s');
			} finally {
				await api.close();
			}
		},
		HANG_BOUND_MS,
	);

	it(
		'the business list search, whose API never answers, ends at its 30 s deadline (on a clock 100 times faster)',
		async () => {
			const api = await startStubbornApi(() => undefined);
			const { restore } = fastClock(100);
			try {
				await expect(listBusinesses(api.credentials)).rejects.toThrow(
					'List businesses failed: no answer within 30 s',
				);
			} finally {
				restore();
				await api.close();
			}
		},
		HANG_BOUND_MS,
	);

	it(
		'a trickled poll ends at its 60 s deadline with an error, and the next poll runs and emits (on a clock 100 times faster)',
		async () => {
			let stuck = false;
			let served = sandbox.customers.slice(0, 3);
			const api = await startStubbornApi((response, path, query) => {
				if (path === CUSTOMERS && stuck) return trickle(response);
				const offset = Number(query.get('offset') ?? 0);
				const limit = Number(query.get('limit') ?? 100);
				const customers = served.slice(offset, offset + limit);
				const hasMore = offset + limit < served.length;
				const pagination = { total: served.length, limit, offset, hasMore };
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ content: { customers, pagination } }));
			});
			const { restore } = fastClock(100);
			try {
				const trigger = new TriggerHarness(api.credentials);
				expect((await trigger.activate()).error).toBeUndefined();
				stuck = true;
				const hung = await trigger.poll();
				expect(hung.error?.message).toBe('Read customers failed: no answer within 60 s');
				stuck = false;
				served = sandbox.customers.slice(0, 4);
				const next = await trigger.poll();
				expect(next.error).toBeUndefined();
				expect(next.items).toEqual([sandbox.customers[3]]);
			} finally {
				restore();
				await api.close();
			}
		},
		HANG_BOUND_MS,
	);
});

describe('a poll always ends, and the next one runs', () => {
	it(
		'a poll still reading at its deadline fails with an error, remembers nothing, and the next poll emits',
		async () => {
			let hang = false;
			const served = sandbox.customers.slice(0, 3);
			const api = await startStubbornApi((response, _path, query) => {
				if (hang) return;
				const offset = Number(query.get('offset') ?? 0);
				const pagination = { total: served.length, limit: 100, offset, hasMore: false };
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ content: { customers: served.slice(offset), pagination } }));
			});
			// Only the poll's own deadline comes early: the request's 60 s would not end this poll.
			const real = clock.sleep;
			clock.sleep = async (ms, signal) => await real(ms === POLL_DEADLINE_MS ? 200 : ms, signal);
			try {
				const trigger = new TriggerHarness(api.credentials);
				expect((await trigger.activate()).error).toBeUndefined();
				const remembered = JSON.stringify(trigger.nodeStaticData());
				hang = true;
				const hung = await trigger.poll();
				expect(hung.error?.message).toBe(
					'Read customers failed: the poll did not finish within 10 minutes',
				);
				expect((hung.error as { description?: string }).description).toBe(
					'The Business CRM API answered too slowly to read the list in that time. Nothing was emitted or remembered; the next poll tries again.',
				);
				expect(JSON.stringify(trigger.nodeStaticData())).toBe(remembered);
				hang = false;
				served.push(sandbox.customers[3]);
				const next = await trigger.poll();
				expect(next.error).toBeUndefined();
				expect(next.items).toEqual([sandbox.customers[3]]);
			} finally {
				clock.sleep = real;
				await api.close();
			}
		},
		HANG_BOUND_MS,
	);
});

describe('Settings › Retry On Fail reads again: a failed list read or business check is not reused', () => {
	// 1 ms: n8n takes 0 for its default of 1 s.
	const retry = { maxTries: 2, waitBetweenTries: 1 };

	it('Find: the first try meets a 500 on the list, the second reads it and finds the customer', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, count: 1 } });
		const customer = sandbox.customers[120];
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: findByEmail(String(customer.email)),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([customer.id]);
	});

	it('Skip Existing: the first try meets a 500 on the list, the second reads it and skips the existing customer', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, count: 1 } });
		const customer = sandbox.customers[120];
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: createSkippingExisting(String(customer.email), String(customer.businessId)),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([customer.id]);
		expect(requestsTo(sandbox, CREATE)).toEqual([]);
	});

	it('Get Many with Filters › Business: the first try meets a 500 on the business check, the second checks again', async () => {
		const business = sandbox.businesses[0].id;
		sandbox.setFaults({ serverError: { path: `/api/business/${business}`, count: 1 } });
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: getManyOfBusiness(business),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(items.length).toBe(sandbox.customers.filter((c) => c.businessId === business).length);
		expect(requestsTo(sandbox, `/api/business/${business}`).map((r) => r.status)).toEqual([
			500, 200,
		]);
	});
});

describe('a list that moves under a read never makes Skip Existing create a customer that was there throughout, nor Find miss one', () => {
	/** Deletes the third customer once, when the page after the first is asked for. */
	function deleteThirdAfterFirstPage() {
		let done = false;
		sandbox.onRequest = (entry) => {
			if (done || entry.path !== CUSTOMERS || entry.query.offset === '0') return;
			done = true;
			sandbox.customers.splice(2, 1);
		};
	}

	it('Skip Existing: customer 101 is skipped, not created again', async () => {
		const customer = sandbox.customers[100];
		deleteThirdAfterFirstPage();
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				...createSkippingExisting(String(customer.email), String(customer.businessId)),
				options: { pagesInParallel: 1 },
			},
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([customer.id]);
		expect(requestsTo(sandbox, CREATE)).toEqual([]);
	});

	it('Find: customer 101 is found', async () => {
		const customer = sandbox.customers[100];
		deleteThirdAfterFirstPage();
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: { ...findByEmail(String(customer.email)), options: { pagesInParallel: 1 } },
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([customer.id]);
	});

	it('a list that moves under every read: an error on the item, and nothing is created', async () => {
		let deleted = 0;
		sandbox.onRequest = (entry) => {
			if (entry.path === CUSTOMERS && entry.query.offset !== '0') {
				sandbox.customers.splice(2, 1);
				deleted++;
			}
		};
		const customer = sandbox.customers[140];
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				...createSkippingExisting(String(customer.email), String(customer.businessId)),
				options: { pagesInParallel: 1 },
			},
		});
		expect(error?.message).toBe(
			'Read the customer list failed: the list changed while it was read, 3 times in a row',
		);
		expect(deleted).toBe(3);
		expect(requestsTo(sandbox, CREATE)).toEqual([]);
	});
});

describe("pages read at once leave n8n's log clean", () => {
	/** Node's listener-leak warnings printed while `work` runs. */
	const leakWarnings = async (work: () => Promise<unknown>): Promise<string[]> => {
		const seen: string[] = [];
		const onWarning = (warning: Error) => {
			if (warning.name === 'MaxListenersExceededWarning') seen.push(warning.message);
		};
		process.on('warning', onWarning);
		try {
			await work();
			// Warnings are emitted on a later tick.
			await new Promise((resolve) => setImmediate(resolve));
		} finally {
			process.off('warning', onWarning);
		}
		return seen;
	};

	it('a first activation over 2,000 customers, ten pages at once, warns of no listener leak', async () => {
		sandbox.seedCustomers(2000);
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		const warnings = await leakWarnings(async () => {
			const outcome = await trigger.activate();
			expect(outcome.error).toBeUndefined();
		});
		expect(warnings).toEqual([]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(Math.ceil(1999 / 99));
	});

	it('Get Many of 2,000 customers, ten pages at once, warns of no listener leak', async () => {
		sandbox.seedCustomers(2000);
		const warnings = await leakWarnings(async () => {
			const { items, error } = await runNode({
				credentials: credentialsFor(sandbox),
				parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(2000);
		});
		expect(warnings).toEqual([]);
	});
});

describe("the item's Request Options reach the request, and a bad one is refused before anything is sent", () => {
	const PROXY_HELP =
		"Enter the proxy under Request Options › Proxy on the node's Settings tab as http://host:port (with user:password@ before the host if it needs them), or remove it.";
	const getBusinesses = (requestOptions: INodeParameters) => ({
		resource: 'business',
		operation: 'getAll',
		returnAll: true,
		requestOptions,
	});

	it('a proxy address without a host: "The proxy is not valid" with the fix, and no request', async () => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: getBusinesses({ proxy: 'http://:8080' }),
		});
		expect(error?.message).toBe('The proxy is not valid');
		expect(error?.description).toBe(PROXY_HELP);
		expect(sandbox.requests).toEqual([]);
	});

	// n8n's RoutingNode checks these itself before the operation runs, with its own advice.
	it.each([
		['not an address', 'not a proxy', 'host'],
		['an address without a port', 'http://127.0.0.1', 'port'],
	])('a proxy that is %s is refused before anything is sent', async (_title, proxy, part) => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: getBusinesses({ proxy }),
		});
		expect(error?.message).toBe('The proxy is not valid');
		expect(error?.description).toBe(`The proxy URL does not contain a valid value for "${part}"`);
		expect(sandbox.requests).toEqual([]);
	});

	it("a Timeout of 0 is n8n's default, not a deadline already passed", async () => {
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: getBusinesses({ timeout: 0 }),
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(sandbox.businesses.length);
	});
});
