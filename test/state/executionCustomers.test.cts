/**
 * What the Business CRM node runs of one execution share: one customer list read, the customers
 * any Create of the execution added, and the Creates whose outcome is unknown. An AI Agent's tool
 * calls are node runs of one execution, as are the several Business CRM nodes of a workflow.
 */
import type { INodeParameters } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	runChain,
	runNode,
	runToolCall,
	type ChainedNode,
	type CrmCredentials,
} from '../helpers/harness.cjs';
import { credentialsFor, requestsTo, useSandbox, createAda } from '../helpers/fixtures.cjs';
import { skipMark } from '../helpers/skip-mark.cjs';
import { EARLIER_MAYBE_CREATED } from '../../nodes/BusinessCrm/resources/customer/create/skipExisting';

const ADD = '/api/business/crm/customer/add';
const CUSTOMERS = '/api/public/v1/customers';

const findByEmail = (email: string): INodeParameters => ({
	resource: 'customer',
	operation: 'find',
	findBy: 'email',
	email,
});

/** A Find by email; a Not-Found item keeps the chain going when nobody matches. */
const findNode = (
	name: string,
	email: string,
	extra: INodeParameters = {},
	credentials?: CrmCredentials,
): ChainedNode => ({
	name,
	parameters: { ...findByEmail(email), whenNothingMatches: 'notFoundItem', ...extra },
	onError: 'continueRegularOutput',
	credentials,
});

/** A Create of Ada Lovelace with this email in the business. */
const createNode = (
	name: string,
	businessId: string,
	email: string,
	extra: INodeParameters = {},
	credentials?: CrmCredentials,
): ChainedNode => ({
	name,
	parameters: createAda(businessId, { additionalFields: { email }, ...extra }),
	onError: 'continueRegularOutput',
	credentials,
});

describe('the Business CRM node runs of one execution', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 250 }, (started) => (sandbox = started));

	const business = () => sandbox.businesses[0].id;

	const find = (name: string, email: string, extra: INodeParameters = {}) =>
		findNode(name, email, extra);
	const create = (name: string, email: string, extra: INodeParameters = {}) =>
		createNode(name, business(), email, extra);

	const chain = (...nodes: ChainedNode[]) =>
		runChain({ credentials: credentialsFor(sandbox), nodes });

	/** 250 customers are 3 pages: one read of the list is 3 requests. */
	const ONE_READ = 3;

	it('two Find nodes of one execution read the customer list once', async () => {
		const [first, second] = [sandbox.customers[5], sandbox.customers[240]];
		const { items, errors } = await chain(
			find('Find first', String(first.email)),
			find('Find second', String(second.email)),
		);
		expect(errors).toEqual({ 'Find first': undefined, 'Find second': undefined });
		expect(items['Find first'].map((item) => item.json)).toEqual([first]);
		expect(items['Find second'].map((item) => item.json)).toEqual([second]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(ONE_READ);
	});

	it('Find nodes with other Pages Read at Once, Max Retries or Timeout each read the list themselves', async () => {
		const known = sandbox.customers[120];
		const { items } = await chain(
			find('Find', String(known.email)),
			find('Find, 2 pages at once', String(known.email), { options: { pagesInParallel: 2 } }),
			find('Find, 1 retry', String(known.email), { options: { maxRetries: 1 } }),
			find('Find, 20 s timeout', String(known.email), { requestOptions: { timeout: 20_000 } }),
		);
		for (const node of ['Find', 'Find, 2 pages at once', 'Find, 1 retry', 'Find, 20 s timeout'])
			expect(items[node].map((item) => item.json)).toEqual([known]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(4 * ONE_READ);
	});

	it('a customer one node created is found by a later Find of the execution, without reading again', async () => {
		const { items } = await chain(
			find('Find before', 'ada@example.com'),
			create('Create', 'ada@example.com'),
			find('Find after', ' ADA@example.com '),
		);
		expect(items['Find before'].map((item) => item.json)).toEqual([
			{ found: false, findBy: 'email', email: 'ada@example.com' },
		]);
		const [created] = items.Create.map((item) => item.json);
		expect(created.id).toMatch(/^cust_/);
		expect(items['Find after'].map((item) => item.json)).toEqual([created]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(ONE_READ);
	});

	it('a customer one node created is found by the ID its Create answered, in a later Find of the execution, without reading again', async () => {
		const { items } = await chain(
			find('Find before', 'ada@example.com'),
			create('Create', 'ada@example.com'),
			{
				name: 'Find by ID',
				parameters: {
					resource: 'customer',
					operation: 'find',
					findBy: 'id',
					customerId: '={{ $json.id }}',
				},
			},
		);
		const [created] = items.Create.map((item) => item.json);
		expect(items['Find by ID'].map((item) => item.json)).toEqual([created]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(ONE_READ);
	});

	it('a second customer with a known email, created after the read, is found beside the first', async () => {
		const known = sandbox.customers[42];
		const email = String(known.email);
		const { items } = await chain(
			find('Find', email),
			create('Create', email),
			find('Find again', email),
		);
		const [created] = items.Create.map((item) => item.json);
		expect(items['Find again'].map((item) => item.json.id)).toEqual([known.id, created.id]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(ONE_READ);
	});

	it('a customer created before the list was read is found once, not also as created', async () => {
		const { items } = await chain(
			create('Create', 'ada@example.com'),
			find('Find', 'ada@example.com'),
		);
		const [created] = items.Create.map((item) => item.json);
		expect(items.Find.map((item) => item.json.id)).toEqual([created.id]);
	});

	it('a customer created without Skip Existing is skipped by a later Skip Existing Create', async () => {
		// The list is read before the Create, so only what the execution remembers can skip it.
		const { items } = await chain(
			find('Find', 'ada@example.com'),
			create('Create', 'ada@example.com'),
			create('Create again', 'Ada@Example.com', { skipExisting: true, matchOn: 'email' }),
		);
		const [created] = items.Create.map((item) => item.json);
		expect(items['Create again'].map((item) => item.json)).toEqual([
			{
				...created,
				_skipExisting: skipMark('alreadyExists', 'email'),
			},
		]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(1);
	});

	it.each([
		['email', 'ada@example.com', 'email'],
		['name', 'lovelace@example.com', 'first and last name'],
	])(
		'a Create whose outcome is unknown stops a Skip Existing Create of its %s in a later node, naming that node',
		async (matchOn, email, what) => {
			sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
			const { items } = await chain(
				create('Create a customer', 'ada@example.com'),
				create('Create again', email, { skipExisting: true, matchOn }),
			);
			expect(items['Create a customer'][0].json.error).toMatch(/answered 502/);
			expect(items['Create again'][0].json.error).toBe(
				`Create customer not sent: row 1 of the node "Create a customer" earlier in this execution, with the same ${what}, may have created this customer. ${EARLIER_MAYBE_CREATED}`,
			);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		},
	);

	it('a Create refused before it was sent (its Max Retries is invalid) does not stop a Skip Existing Create of its email', async () => {
		const { items } = await chain(
			create('Create', 'ada@example.com', { options: { maxRetries: '={{ -1 }}' } }),
			create('Create again', 'ada@example.com', { skipExisting: true, matchOn: 'email' }),
		);
		expect(items.Create[0].json.error).toMatch(/^Max Retries must be a whole number from 0 to 100/);
		expect(items['Create again'][0].json._skipExisting).toMatchObject({ outcome: 'created' });
		expect(requestsTo(sandbox, ADD)).toHaveLength(1);
	});

	it('after a Create whose outcome is unknown, a later node reads the list again', async () => {
		sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
		await chain(
			find('Find before', 'ada@example.com'),
			create('Create', 'ada@example.com'),
			find('Find after', 'ada@example.com'),
		);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2 * ONE_READ);
	});

	it('a list read that failed in one node is made again by a later node', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, count: 1 } });
		const known = sandbox.customers[7];
		const noRetry = { options: { maxRetries: 0 } };
		const { items } = await chain(
			find('Find first', String(known.email), noRetry),
			find('Find second', String(known.email), noRetry),
		);
		expect(items['Find first'][0].json.error).toMatch(/^Read the customer list failed/);
		expect(items['Find second'].map((item) => item.json)).toEqual([known]);
	});

	it('two executions share nothing: each reads the list', async () => {
		const known = sandbox.customers[9];
		const once = () =>
			runNode({
				credentials: credentialsFor(sandbox),
				parameters: find('Find', String(known.email)).parameters,
			});
		const [first, second] = [await once(), await once()];
		expect(first.items.map((item) => item.json)).toEqual([known]);
		expect(second.items.map((item) => item.json)).toEqual([known]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2 * ONE_READ);
	});

	it('a customer created in one execution is not remembered by the next, which asks the API', async () => {
		await chain(create('Create', 'ada@example.com'));
		sandbox.seedCustomers(250);
		const { items } = await chain(find('Find', 'ada@example.com'));
		expect(items.Find.map((item) => item.json)).toEqual([
			{ found: false, findBy: 'email', email: 'ada@example.com' },
		]);
	});
});

describe('Business CRM nodes of one execution on two CRMs share nothing', () => {
	let sandbox: Sandbox;
	let other: Sandbox;
	beforeAll(async () => {
		[sandbox, other] = await Promise.all([
			startSandbox({ businesses: 1 }),
			startSandbox({ businesses: 1 }),
		]);
	});
	afterAll(async () => await Promise.all([sandbox.close(), other.close()]));
	beforeEach(() => {
		for (const crm of [sandbox, other]) {
			crm.clearLog();
			crm.seedCustomers(30);
			crm.resetFaults();
		}
	});

	const find = (name: string, email: string, credentials?: CrmCredentials) =>
		findNode(name, email, {}, credentials);
	const create = (
		name: string,
		crm: Sandbox,
		extra: INodeParameters = {},
		credentials?: CrmCredentials,
	) => createNode(name, crm.businesses[0].id, 'ada@example.com', extra, credentials);
	const skipExisting = { skipExisting: true, matchOn: 'email', matchWithin: 'all' };

	it("a Find with another Organization ID reads that organization's list, not the first one's", async () => {
		const known = sandbox.customers[3];
		const { items } = await runChain({
			credentials: credentialsFor(sandbox),
			nodes: [
				find('Find', String(known.email)),
				find('Find in the other organization', String(known.email), {
					...credentialsFor(sandbox),
					apiKey: sandbox.otherOrgApiKey,
					organizationId: sandbox.otherOrganizationId,
				}),
			],
		});
		expect(items.Find.map((item) => item.json)).toEqual([known]);
		expect(items['Find in the other organization'].map((item) => item.json)).toEqual([
			{ found: false, findBy: 'email', email: String(known.email) },
		]);
	});

	it('a customer created on one CRM is not skipped as existing by a Skip Existing Create on another', async () => {
		const { items } = await runChain({
			credentials: credentialsFor(sandbox),
			nodes: [
				create('Create', sandbox),
				create('Create on the other CRM', other, skipExisting, credentialsFor(other)),
				find('Find on the other CRM', 'ada@example.com', credentialsFor(other)),
			],
		});
		expect(items.Create[0].json.id).toMatch(/^cust_/);
		expect(items['Create on the other CRM'][0].json._skipExisting).toEqual(
			skipMark('created', 'email'),
		);
		expect(requestsTo(other, ADD)).toHaveLength(1);
		expect(items['Find on the other CRM'].map((item) => item.json.id)).toEqual([
			items['Create on the other CRM'][0].json.id,
		]);
	});

	it('a Create whose outcome is unknown on one CRM does not stop a Skip Existing Create on another', async () => {
		sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
		const { items } = await runChain({
			credentials: credentialsFor(sandbox),
			nodes: [
				create('Create', sandbox),
				create('Create on the other CRM', other, skipExisting, credentialsFor(other)),
			],
		});
		expect(items.Create[0].json.error).toMatch(/answered 502/);
		expect(items['Create on the other CRM'][0].json).toMatchObject({
			_skipExisting: { outcome: 'created' },
		});
		expect(requestsTo(other, ADD)).toHaveLength(1);
	});

	it('the same CRM under a new password in its Base URL is the same CRM', async () => {
		const withPassword = (password: string) => {
			const url = new URL(sandbox.url);
			url.username = 'proxy';
			url.password = password;
			return { ...credentialsFor(sandbox), baseUrl: url.toString() };
		};
		const { items } = await runChain({
			credentials: withPassword('old'),
			nodes: [
				create('Create', sandbox),
				create('Create again', sandbox, skipExisting, withPassword('new')),
			],
		});
		expect(items['Create again'][0].json._skipExisting).toMatchObject({ outcome: 'alreadyExists' });
		expect(requestsTo(sandbox, ADD)).toHaveLength(1);
	});
});

describe('tool calls: node runs of their own', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 1, customers: 150 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.clearLog());
	afterEach(() => sandbox.resetFaults());

	const toolCall = (
		parameters: INodeParameters,
		execution?: object,
		onError?: 'continueRegularOutput',
	) => runToolCall({ credentials: credentialsFor(sandbox), parameters, onError }, execution);

	/** The run data of one execution, as n8n's WorkflowExecute starts it. */
	const anExecution = () => ({
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: null,
		},
	});

	it('three Find calls of one execution read the list once; calls of two executions do not share', async () => {
		const findEach = async (execution: object) => {
			const withEmail = sandbox.customers.filter((customer) => customer.email);
			for (const known of [withEmail[0], withEmail[50], withEmail.at(-1)!]) {
				const found = await toolCall(findByEmail(String(known.email)), execution);
				expect(found.map((item) => item.json)).toEqual([known]);
			}
		};
		await findEach(anExecution());
		// 150 customers are 2 pages.
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2);
		await findEach(anExecution());
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(4);
	});

	it('a Create that may have happened stops the same Create in a later call of the same node, naming that call', async () => {
		sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
		const execution = anExecution();
		const createOnce = () =>
			toolCall(
				createAda(sandbox.businesses[0].id, {
					additionalFields: { email: 'ada@example.com' },
					skipExisting: true,
					matchOn: 'email',
				}),
				execution,
				'continueRegularOutput',
			);
		expect((await createOnce())[0].json.error).toMatch(/answered 502/);
		expect((await createOnce())[0].json.error).toMatch(
			/^Create customer not sent: row 1 of an earlier run of this node, with the same email, may have created this customer\. /,
		);
		expect(requestsTo(sandbox, ADD)).toHaveLength(1);
	});

	it('a customer created while a Find is reading the list is found once by a later Find of the execution', async () => {
		const execution = anExecution();
		const email = 'grace@example.com';
		const findGrace = () => toolCall(findByEmail(email), execution);
		// The list's second page (from offset 99: pages overlap by one) is answered only once the
		// Create has landed, so the read that began before the Create holds the new customer too.
		let readStarted!: () => void;
		const started = new Promise<void>((resolve) => (readStarted = resolve));
		let createLanded!: () => void;
		const landed = new Promise<void>((resolve) => (createLanded = resolve));
		sandbox.onRequest = async (entry) => {
			if (entry.path !== CUSTOMERS) return;
			if (entry.query.offset === '0') readStarted();
			if (entry.query.offset === '99') await landed;
		};
		try {
			const first = findGrace();
			await started;
			const created = await toolCall(
				createAda(sandbox.businesses[0].id, {
					firstName: 'Grace',
					lastName: 'Hopper',
					additionalFields: { email },
				}),
				execution,
			);
			createLanded();
			expect((await first).map((item) => item.json.id)).toEqual([created[0].json.id]);
			// The read holds Grace, and so does what the execution created since the read began.
			expect((await findGrace()).map((item) => item.json.id)).toEqual([created[0].json.id]);
			expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2);
		} finally {
			sandbox.onRequest = undefined;
			sandbox.customers.splice(150);
		}
	});

	it('outside any workflow execution, a call finds on its own, and the next call reads the list again', async () => {
		const known = sandbox.customers[120];
		const findIt = () => toolCall(findByEmail(String(known.email)));
		expect((await findIt()).map((item) => item.json)).toEqual([known]);
		expect((await findIt()).map((item) => item.json)).toEqual([known]);
		// 150 customers are 2 pages; each call read them.
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(4);
	});
});
