/**
 * One road to the API: every request of the package, whichever operation, check, search or poll
 * builds it, keeps the same promises. The credential's Allowed Domains are obeyed before anything
 * is sent; a request that never answers, or trickles its reply, ends at its deadline; Retry On
 * Fail reads again; a list that moves under a read never makes Skip Existing create a customer
 * that was there throughout, nor Find miss one. Real HTTP to servers on 127.0.0.1.
 */
import type { ServerResponse } from 'node:http';
import type { INodeParameters } from 'n8n-workflow';
import {
	POLL_DEADLINE_MS,
	POLL_TOO_SLOW,
} from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import {
	checkCredential,
	NO_DOMAINS_LISTED,
	type CredentialProblem,
} from '../../nodes/BusinessCrm/credential/credential';
import { KEPT_MOVING, MOVED_UNDER_EVERY_READ } from '../../nodes/BusinessCrm/api/listReader';
import { BAD_PROXY, PROXY_HELP } from '../../nodes/BusinessCrm/api/requestSettings';
import type { Sandbox } from '../sandbox/server.cjs';
import { listBusinesses, runNode, type CrmCredentials } from '../helpers/harness.cjs';
import {
	byId,
	closedPort,
	credentialsFor,
	failed,
	requestsTo,
	useSandbox,
} from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';
import { clock, fastClock } from '../helpers/clock.cjs';
import { json, never, pathsOf, withApi, type Answer } from '../helpers/scripted-api.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const CREATE = '/api/business/crm/customer/add';

let sandbox: Sandbox;
useSandbox({ businesses: 2, customers: 150 }, { customers: 150 }, (started) => (sandbox = started));

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
	/** The node's own refusal of a credential whose Allowed Domains leave out the sandbox. */
	const refusalOf = (allowedDomains: string) =>
		checkCredential({ ...restricted(allowedDomains) }) as CredentialProblem;
	const ALLOWED = 'api.example.com, *.example.org';
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
				credentials: restricted(ALLOWED),
				parameters: parameters(),
			});
			expect(error?.message).toBe(refusalOf(ALLOWED).problem);
			expect((error as Error & { description?: string }).description).toBe(refusalOf(ALLOWED).fix);
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('the business list search: refused, and the API sees no request', async () => {
		await expect(listBusinesses(restricted(ALLOWED))).rejects.toThrow(refusalOf(ALLOWED).problem);
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
			const trigger = new TriggerHarness(restricted(ALLOWED), options);
			const outcome = await trigger.activate();
			expect(outcome.error?.message).toBe(refusalOf(ALLOWED).problem);
			expect(trigger.nodeStaticData()).toEqual({});
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('Specific Domains with an empty list: refused on every road, and the API sees no request', async () => {
		const credentials = restricted('  ');
		// On the operations' road n8n 2.41's RoutingNode refuses first, in its own words.
		const { error } = await runNode({ credentials, parameters: findByEmail('a@example.com') });
		expect(error?.message).toMatch(
			new RegExp(`^(No allowed domains specified|${NO_DOMAINS_LISTED}$)`),
		);
		const trigger = new TriggerHarness(credentials);
		expect((await trigger.activate()).error?.message).toBe(NO_DOMAINS_LISTED);
		await expect(listBusinesses(credentials)).rejects.toThrow(NO_DOMAINS_LISTED);
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
		expect(error?.message).toBe(refusalOf('27.0.0.1').problem);
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
		expect(error?.message).toBe(refusalOf('*.127.0.0.1').problem);
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

/** Headers and the start of a JSON body at once, then one space every 50 ms, never the end. */
const trickle: Answer = (_request, _url, response: ServerResponse) => {
	response.writeHead(200, { 'content-type': 'application/json' });
	response.write('{"content":');
	const drip = setInterval(() => {
		if (response.destroyed) clearInterval(drip);
		else response.write(' ');
	}, 50);
	response.on('close', () => clearInterval(drip));
};

/** The customers `served()` gives, as a paged list; `held()`, when it gives one, answers instead. */
function customerList(served: () => object[], held: () => Answer | undefined): Answer {
	return (request, url, response) => {
		const hold = held();
		if (hold) return hold(request, url, response);
		const offset = Number(url.searchParams.get('offset') ?? 0);
		const limit = Number(url.searchParams.get('limit') ?? 100);
		const all = served();
		json(response, 200, {
			content: {
				customers: all.slice(offset, offset + limit),
				pagination: { total: all.length, limit, offset, hasMore: offset + limit < all.length },
			},
		});
	};
}

describe('a request that never answers, or trickles its reply, ends at its deadline on every road', () => {
	it.each([
		['never answers', never],
		['trickles its reply', trickle],
	])(
		'the business check of Filters › Business, whose API %s, ends at Request Options › Timeout',
		async (_title, answer) =>
			await withApi(answer, async (api) => {
				const started = Date.now();
				const { error } = await runNode({
					credentials: api.credentials,
					parameters: getManyOfBusiness('biz_1', { requestOptions: { timeout: 500 } }),
				});
				expect(Date.now() - started).toBeLessThan(4_000);
				expect(error?.message).toBe(failed('Check the business', 'no answer within 0.5 s'));
				expect(pathsOf(api)).toEqual(['/api/business/biz_1']);
			}),
		HANG_BOUND_MS,
	);

	it(
		'a trickled list page of Get Many ends at Request Options › Timeout, not at the idle timeout',
		async () =>
			await withApi(trickle, async (api) => {
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
				expect(error?.message).toBe(failed('Get many customers', 'no answer within 1 s'));
			}),
		HANG_BOUND_MS,
	);

	it(
		'the business list search, whose API never answers, ends at its 30 s deadline (on a clock 100 times faster)',
		async () =>
			await withApi(never, async (api) => {
				const { restore } = fastClock(100);
				try {
					await expect(listBusinesses(api.credentials)).rejects.toThrow(
						failed('List businesses', 'no answer within 30 s'),
					);
				} finally {
					restore();
				}
			}),
		HANG_BOUND_MS,
	);
});

describe('a poll always ends, and the next one runs', () => {
	/** Makes the poll's own deadline come after 200 ms; the request's 60 s would not end a poll. */
	const earlyPollDeadline = () => {
		const real = clock.sleep;
		clock.sleep = async (ms, signal) => await real(ms === POLL_DEADLINE_MS ? 200 : ms, signal);
		return () => {
			clock.sleep = real;
		};
	};
	/** As n8n's durable scheduler gives each tick a budget: here 200 ms. */
	const budget = (trigger: TriggerHarness) => (trigger.pollBudgetMs = 200);
	const withoutBudget = (trigger: TriggerHarness) => (trigger.pollBudgetMs = null);

	it.each<
		[string, Answer, () => () => void, string, string | undefined, (t: TriggerHarness) => void]
	>([
		[
			'a trickled poll ends at its 60 s deadline with an error (on a clock 100 times faster)',
			trickle,
			() => fastClock(100).restore,
			failed('Read customers', 'no answer within 60 s'),
			undefined,
			() => undefined,
		],
		[
			'a poll still reading at its deadline fails with an error (n8n before 2.38: no budget)',
			never,
			earlyPollDeadline,
			failed(
				'Read customers',
				`the poll did not finish within ${POLL_DEADLINE_MS / 60_000} minutes`,
			),
			POLL_TOO_SLOW,
			withoutBudget,
		],
		[
			"a poll still reading at the end of n8n's budget for it ends itself with an error",
			never,
			() => () => undefined,
			failed('Read customers', 'the poll did not finish within 0.2 s'),
			POLL_TOO_SLOW,
			budget,
		],
	])(
		'%s, remembers nothing, and the next poll runs and emits',
		async (_title, held, speedUp, message, description, setUp) => {
			let holding = false;
			const served = sandbox.customers.slice(0, 3);
			const answer = customerList(
				() => served,
				() => (holding ? held : undefined),
			);
			await withApi(answer, async (api) => {
				const restore = speedUp();
				try {
					const trigger = new TriggerHarness(api.credentials);
					setUp(trigger);
					expect((await trigger.activate()).error).toBeUndefined();
					const remembered = JSON.stringify(trigger.nodeStaticData());
					holding = true;
					const hung = await trigger.poll();
					expect(hung.error?.message).toBe(message);
					if (description !== undefined) {
						expect((hung.error as { description?: string }).description).toBe(description);
					}
					expect(JSON.stringify(trigger.nodeStaticData())).toBe(remembered);
					holding = false;
					served.push(sandbox.customers[3]);
					const next = await trigger.poll();
					expect(next.error).toBeUndefined();
					expect(next.items).toEqual([sandbox.customers[3]]);
				} finally {
					restore();
				}
			});
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
			failed('Read the customer list', `${KEPT_MOVING}, 3 times in a row`),
		);
		expect(error?.description).toContain(`Customers ${MOVED_UNDER_EVERY_READ}`);
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
		expect(error?.message).toBe(BAD_PROXY);
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

	it('a proxy with user:password@ gets them, percent-decoded, as its Proxy-Authorization', async () => {
		const apiPort = await closedPort();
		const authorizations: Array<string | undefined> = [];
		await withApi(
			(request, url, response) => {
				authorizations.push(request.headers['proxy-authorization']);
				if (request.headers['proxy-authorization'] === undefined) {
					response.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' });
					response.end();
					return;
				}
				// Only the proxy can answer: nothing listens at the Base URL's port.
				json(response, 200, {
					content: { businesses: [{ id: 'biz_proxied', path: url.pathname }] },
				});
			},
			async (proxy) => {
				const { items, error } = await runNode({
					credentials: { ...proxy.credentials, baseUrl: `http://127.0.0.1:${apiPort}` },
					parameters: getBusinesses({
						proxy: `http://ada%2Bcrm:p%40ss%20word@127.0.0.1:${proxy.port}`,
					}),
				});
				expect(error).toBeUndefined();
				expect(items.map((item) => item.json)).toEqual([
					{ id: 'biz_proxied', path: '/api/business/list/all' },
				]);
				expect(authorizations).toEqual([
					`Basic ${Buffer.from('ada+crm:p@ss word').toString('base64')}`,
				]);
				expect(proxy.urls.map(String)).toEqual([
					`http://127.0.0.1:${apiPort}/api/business/list/all`,
				]);
			},
		);
	});
});
