import type { INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../../../sandbox/server.cjs';
import { runNode, type CrmCredentials } from '../../../helpers/harness.cjs';
import {
	startCreateApi,
	type CreateApi,
	type CreateReply,
} from '../../../helpers/scripted-api.cjs';
import {
	byId,
	credentialsFor,
	requestsTo,
	useSandbox,
	createAda,
} from '../../../helpers/fixtures.cjs';
import {
	NOT_ONE_CUSTOMER,
	PROBABLY_CREATED,
} from '../../../../nodes/BusinessCrm/resources/customer/create/request';
import { FINITE_HELP } from '../../../../nodes/BusinessCrm/resources/customer/create/body';
import { countEvaluations } from '../../../helpers/expression-count.cjs';

const ADD = '/api/business/crm/customer/add';

type Rows = Array<Record<string, unknown>>;

/** Runs a Create of Ada Lovelace in the business, with `extra` over its parameters. */
const runCreate = (
	credentials: CrmCredentials,
	businessId: string,
	extra: INodeParameters,
	items?: Rows,
	onError?: 'continueRegularOutput',
) =>
	runNode({
		credentials,
		parameters: createAda(businessId, extra),
		items: items as never,
		onError,
	});

describe('Customer › Create', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 0 }, (started) => (sandbox = started));

	const create = (extra: INodeParameters, items?: Rows, onError?: 'continueRegularOutput') =>
		runCreate(credentialsFor(sandbox), sandbox.businesses[0].id, extra, items, onError);

	it('posts the customer and outputs the created record with its cust_ id', async () => {
		const { items, error } = await create({
			additionalFields: {
				email: 'ada@example.com',
				phone: '+44 20 7946 0958',
				customFields: { field: [{ name: 'leadSource', value: 'Newsletter' }] },
			},
		});
		expect(error).toBeUndefined();
		const [request] = requestsTo(sandbox, ADD);
		expect(request.method).toBe('POST');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			businessId: sandbox.businesses[0].id,
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
			phone: '+44 20 7946 0958',
			leadSource: 'Newsletter',
		});
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json).toEqual(sandbox.customers[0]);
		expect(items[0].json.id).toMatch(/^cust_[a-z0-9]+$/);
	});

	it('does not send empty optional fields, and trims the names', async () => {
		await create({
			firstName: '  Ada ',
			lastName: ' Lovelace',
			additionalFields: { email: '', phone: '  ' },
		});
		expect(requestsTo(sandbox, ADD)[0].body).toEqual({
			businessId: sandbox.businesses[0].id,
			firstName: 'Ada',
			lastName: 'Lovelace',
		});
	});

	it('creates one customer per input item from expressions, each paired to its item', async () => {
		const people = [
			{ first: 'Grace', last: 'Hopper', mail: 'grace@example.com' },
			{ first: 'Alan', last: 'Turing', mail: 'alan@example.com' },
			{ first: 'Edsger', last: 'Dijkstra', mail: 'edsger@example.com' },
		];
		const { items } = await create(
			{
				businessId: { __rl: true, mode: 'id', value: `=${sandbox.businesses[1].id}` },
				firstName: '={{ $json.first }}',
				lastName: '={{ $json.last }}',
				additionalFields: { email: '={{ $json.mail }}' },
			},
			people,
		);
		expect(items.map((item) => [item.json.firstName, item.json.email, item.pairedItem])).toEqual([
			['Grace', 'grace@example.com', { item: 0 }],
			['Alan', 'alan@example.com', { item: 1 }],
			['Edsger', 'edsger@example.com', { item: 2 }],
		]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(3);
		expect(sandbox.customers.map((c) => c.businessId)).toEqual(
			Array(3).fill(sandbox.businesses[1].id),
		);
	});

	it('makes the new customer appear in Customer › Get Many', async () => {
		sandbox.seedCustomers(150);
		const { items: created } = await create({ firstName: 'Katherine', lastName: 'Johnson' });
		const { items } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
		});
		expect(items).toHaveLength(151);
		expect(items.filter((item) => item.json.id === created[0].json.id)).toEqual([
			{ json: created[0].json, pairedItem: { item: 0 } },
		]);
	});

	it("gives the API's own words when it refuses the customer", async () => {
		const { error } = await create({ businessId: byId('biz_nowhere') });
		expect(error?.message).toBe(
			'Create customer failed: the Business CRM API answered 404 "Not Found: Business biz_nowhere not found"',
		);
		expect((error as { httpCode?: string }).httpCode).toBe('404');
		expect(error?.description).toContain('business "biz_nowhere"');
	});

	it('a custom field name may hold spaces, but not DEL or another control character', async () => {
		const { items, error } = await create(
			{
				additionalFields: { customFields: { field: [{ name: '={{ $json.field }}', value: 'x' }] } },
			},
			[{ field: 'favourite colour' }, { field: 'tax\u007fid' }, { field: 'tax\u001fid' }],
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ firstName: 'Ada', 'favourite colour': 'x' });
		expect(items.slice(1).map((item) => item.json.error)).toEqual([
			expect.stringMatching(
				/^Row 2 \(Ada Lovelace\): Custom field name "tax\u007fid" cannot be used\. /,
			),
			expect.stringMatching(
				/^Row 3 \(Ada Lovelace\): Custom field name "tax\\u001fid" cannot be used\. /,
			),
		]);
		expect(requestsTo(sandbox, ADD).map((request) => request.body)).toEqual([
			expect.objectContaining({ 'favourite colour': 'x' }),
		]);
	});

	it('an error nobody foresaw (an email expression giving an object that holds itself) fails only its item, in its own words, not as an API reply', async () => {
		const { items, error } = await create(
			{
				additionalFields: {
					email: '={{ (() => { const a = { work: 1 }; a.self = a; return a; })() }}',
				},
			},
			undefined,
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: { error: 'Maximum call stack size exceeded', errorType: 'invalidInput' },
				pairedItem: { item: 0 },
			},
		]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});
});

describe('Customer › Create against an API that answers without a body', () => {
	let api: CreateApi;
	let reply: CreateReply;
	beforeAll(async () => {
		api = await startCreateApi(() => reply);
	});
	afterAll(async () => await api.close());
	beforeEach(() => {
		api.posts.length = 0;
	});

	const createThere = (
		extra: INodeParameters = { additionalFields: { email: 'ada@example.com' } },
		items?: Rows,
		onError?: 'continueRegularOutput',
	) => runCreate(api.credentials, 'biz_1', extra, items, onError);
	const ada = { businessId: 'biz_1', firstName: 'Ada', lastName: 'Lovelace' };
	const sent = { ...ada, email: 'ada@example.com' };

	it('201 with a Location: a success that outputs the fields sent, the Location and the id', async () => {
		reply = { status: 201, headers: { location: '/api/public/v1/customers/cust_7f3a9c' } };
		const { items, error } = await createThere();
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: { ...sent, location: '/api/public/v1/customers/cust_7f3a9c', id: 'cust_7f3a9c' },
				pairedItem: { item: 0 },
			},
		]);
		expect(api.posts).toEqual([sent]);
	});

	it('201 with a Location that names no cust_ id: the Location, no id', async () => {
		reply = { status: 201, headers: { location: 'https://api.example.com/customers' } };
		const { items } = await createThere();
		expect(items[0].json).toEqual({ ...sent, location: 'https://api.example.com/customers' });
	});

	it.each([
		[
			'with a query string',
			'its id',
			'/api/public/v1/customers/cust_7f3a9c?expand=all',
			'cust_7f3a9c',
		],
		['with a fragment', 'its id', '/api/public/v1/customers/cust_7f3a9c#profile', 'cust_7f3a9c'],
		['ending in a slash', 'its id', '/api/public/v1/customers/cust_7f3a9c/', 'cust_7f3a9c'],
		['that is the id alone', 'its id', 'cust_7f3a9c', 'cust_7f3a9c'],
		[
			'whose last part only ends like an id',
			'no id',
			'/api/public/v1/customers/old_cust_7f3a9c',
			undefined,
		],
		[
			'whose last part only starts like an id',
			'no id',
			'/api/public/v1/customers/cust_7f3a9c.json',
			undefined,
		],
		['whose last part is cust_ and no token', 'no id', '/api/public/v1/customers/cust_', undefined],
	])('201 with a Location %s gives %s', async (_, __, location, id) => {
		reply = { status: 201, headers: { location } };
		const { items, error } = await createThere();
		expect(error).toBeUndefined();
		expect(items[0].json).toStrictEqual({ ...sent, location, ...(id ? { id } : {}) });
	});

	it('an empty Location, or one of only a no-break space, adds no location to the output', async () => {
		for (const location of ['', '\u00a0']) {
			reply = { status: 201, headers: { location } };
			const { items } = await createThere();
			expect(items[0].json).toStrictEqual(sent);
		}
	});

	it('a Location padded with a no-break space (which HTTP does not strip) is output trimmed, with its id', async () => {
		reply = { status: 201, headers: { location: '/api/public/v1/customers/cust_7f3a9c\u00a0' } };
		const { items } = await createThere();
		expect(items[0].json).toStrictEqual({
			...sent,
			location: '/api/public/v1/customers/cust_7f3a9c',
			id: 'cust_7f3a9c',
		});
	});

	it('204: the output holds the fields sent and no field left empty', async () => {
		reply = { status: 204, headers: {} };
		const { items } = await createThere({
			additionalFields: {
				email: '  ',
				customFields: {
					field: [
						{ name: 'leadSource', value: '   ' },
						{ name: 'note', value: '={{ $json.nothing }}' },
						{ name: 'city', value: 'London' },
					],
				},
			},
		});
		const only = { ...ada, city: 'London' };
		expect(Object.keys(items[0].json)).toEqual(Object.keys(only));
		expect(items[0].json).toStrictEqual(only);
		expect(api.posts).toEqual([only]);
	});

	it('an email or phone from an expression that gives a list or an object is refused, never sent as its JSON text', async () => {
		reply = { status: 204, headers: {} };
		const { items } = await createThere(
			{ additionalFields: { email: '={{ $json.email }}', phone: '={{ $json.phone }}' } },
			[
				{ email: ['ada@example.com'], phone: '+44 20 7946 0958' },
				{ email: 'ada@example.com', phone: { home: '+44 20 7946 0958' } },
			],
			'continueRegularOutput',
		);
		expect(items.map((item) => String(item.json.error).split('. ')[0])).toEqual([
			'Row 1 (Ada Lovelace): Email is a list of 1 value, not one value',
			'Row 2 (Ada Lovelace): Phone is an object, not one value',
		]);
		expect(api.posts).toEqual([]);
	});

	it('a phone from an expression that gives a big integer is sent as its digits', async () => {
		reply = { status: 204, headers: {} };
		const { error } = await createThere({
			additionalFields: { phone: '={{ BigInt("15550100199") }}' },
		});
		expect(error).toBeUndefined();
		expect(api.posts).toEqual([{ ...ada, phone: '15550100199' }]);
	});

	it('a name from an expression that gives true or false (a checkbox column) is sent as that word', async () => {
		reply = { status: 204, headers: {} };
		const { error } = await createThere({ lastName: '={{ false }}' });
		expect(error).toBeUndefined();
		expect(api.posts).toEqual([{ ...ada, lastName: 'false' }]);
	});

	it('a Create answered 2xx with a JSON list says the customer was probably created', async () => {
		reply = {
			status: 201,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify([{ id: 'cust_7f3a9c' }]),
		};
		const { items, error } = await createThere();
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'Create customer failed: the Business CRM API answered 201 with a JSON list, not the customer',
		);
		expect(error?.description).toBe(`${NOT_ONE_CUSTOMER} ${PROBABLY_CREATED}`);
		expect(api.posts).toEqual([sent]);
	});

	it('a Create answered 2xx with a bare JSON value says the customer was probably created', async () => {
		for (const [body, shown] of [
			['true', 'true'],
			['"queued"', '"queued"'],
			['null', 'null'],
		]) {
			reply = { status: 200, headers: { 'content-type': 'application/json' }, body };
			const { error } = await createThere();
			expect(error?.description).toBe(
				`Expected a JSON object or list, but the reply was ${shown}. ${PROBABLY_CREATED}`,
			);
		}
		expect(api.posts).toEqual([sent, sent, sent]);
	});

	it('204 without a Location: a success that outputs the fields sent, sent once', async () => {
		reply = { status: 204, headers: {} };
		const { items, error } = await createThere();
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: sent, pairedItem: { item: 0 } }]);
		expect(api.posts).toHaveLength(1);
	});

	it('sends custom field values as JSON values, text as trimmed text', async () => {
		reply = { status: 204, headers: {} };
		const values = {
			count: 42,
			ratio: 0.5,
			vip: true,
			optOut: false,
			note: null,
			tags: ['a', 'b'],
			address: { city: 'London' },
			digits: '42',
			word: '  yes ',
			blank: '   ',
		};
		const field = Object.keys(values).map((name) => ({ name, value: `={{ $json.${name} }}` }));
		const { error } = await createThere({ additionalFields: { customFields: { field } } }, [
			values,
		]);
		expect(error).toBeUndefined();
		// Blank text is not sent (toEqual: no blank field), other text goes trimmed.
		expect(api.posts).toEqual([{ ...ada, ...values, word: 'yes', blank: undefined }]);
		expect(api.posts[0]).not.toHaveProperty('blank');
	});

	it('refuses a custom field number JSON cannot hold (Infinity, NaN), naming the field', async () => {
		const { items, error } = await createThere(
			{ additionalFields: { customFields: { field: [{ name: 'score', value: '={{ 1 / 0 }}' }] } } },
			undefined,
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{
				error: `Custom field "score" is Infinity, which JSON cannot hold. ${FINITE_HELP}`,
				errorType: 'invalidInput',
			},
		]);
		expect(api.posts).toEqual([]);
	});

	it('sends every text cleaned at its ends and in NFC, its inside as typed', async () => {
		reply = { status: 204, headers: {} };
		const { error } = await createThere({
			firstName: ' \u200bJose\u0301 Mari\u0301a ',
			lastName: 'Lovelace\ufeff',
			additionalFields: {
				email: 'ada@example.com\u200b',
				phone: '\u2060+44  20 7946 0958\u00a0',
				customFields: {
					field: [
						{ name: 'leadSource', value: '\u200bNews  letter\u200d\n' },
						{ name: 'city\u200b', value: 'Zu\u0308rich' },
						{ name: 'note', value: '\u00ad\u2060' },
					],
				},
			},
		});
		expect(error).toBeUndefined();
		expect(api.posts).toEqual([
			{
				businessId: 'biz_1',
				firstName: 'Jos\u00e9 Mar\u00eda',
				lastName: 'Lovelace',
				email: 'ada@example.com',
				phone: '+44  20 7946 0958',
				leadSource: 'News  letter',
				city: 'Z\u00fcrich',
			},
		]);
		expect(api.posts[0]).not.toHaveProperty('note');
	});
});

describe('Customer › Create reads each expression of a row once', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 1 }, {}, (started) => (sandbox = started));
	const ROWS = 20;
	const rows = Array.from({ length: ROWS }, (_, n) => ({
		first: `Ada${n}`,
		last: 'Lovelace',
		email: `ada${n}@example.com`,
	}));
	const fromRows: INodeParameters = {
		firstName: '={{ $json.first }}',
		lastName: '={{ $json.last }}',
		additionalFields: { email: '={{ $json.email }}' },
	};

	it.each<[string, INodeParameters]>([
		['a plain import', {}],
		['with Skip Existing', { skipExisting: true, matchOn: 'email' }],
		[
			'with Skip Existing and Preview Only',
			{ skipExisting: true, matchOn: 'email', previewOnly: true },
		],
	])('%s: three expressions, three evaluations a row, all by the node', async (_title, extra) => {
		const count = await countEvaluations(async () => {
			const { error, items } = await runCreate(
				credentialsFor(sandbox),
				sandbox.businesses[0].id,
				{ ...fromRows, ...extra },
				rows,
			);
			expect(error).toBeUndefined();
			expect(items).toHaveLength(ROWS);
		});
		expect(count.ours).toBe(3 * ROWS);
		// A workflow run of Create is the node's custom operation: n8n's RoutingNode, which
		// evaluates every parameter of every row before the first Create, does not run.
		expect(count.n8n).toBe(0);
	});
});

describe('Customer › Create fails as the routed operations do', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 1 }, {}, (started) => (sandbox = started));

	it("a refused row is a NodeApiError, as RoutingNode makes of an operation's refusal: n8n's error view shows both alike", async () => {
		const credentials = credentialsFor(sandbox);
		const created = await runCreate(credentials, sandbox.businesses[0].id, { firstName: '   ' });
		const found = await runNode({
			credentials,
			parameters: { resource: 'customer', operation: 'find', findBy: 'email', email: '   ' },
		});
		for (const { error } of [created, found]) {
			const nodeError = error as (typeof error & { httpCode?: string | null }) | undefined;
			expect(nodeError?.name).toBe('NodeApiError');
			expect(nodeError?.httpCode).toBe('none');
			expect(nodeError?.context.itemIndex).toBe(0);
		}
		expect(created.error?.message).toMatch(/^First Name /);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});
});
