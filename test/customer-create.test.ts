import { startSandbox, type Sandbox } from './sandbox/server';
import { runNode } from './helpers/harness';
import { byId, credentialsFor, requestsTo } from './helpers/fixtures';

const ADD = '/api/business/crm/customer/add';

describe('Customer › Create', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.clearLog();
		sandbox.seedCustomers(0);
	});

	const create = (parameters: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'create',
				businessId: byId(sandbox.businesses[0].id),
				firstName: 'Ada',
				lastName: 'Lovelace',
				...parameters,
			},
			items: items as never,
		});

	it('posts the customer and outputs the created record with its cust_ id', async () => {
		const { items, error } = await create({
			additionalFields: {
				email: 'ada@example.com',
				phone: '+44 20 7946 0958',
				customFields: { field: [{ name: 'company', value: 'Analytical Engines' }] },
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
			company: 'Analytical Engines',
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
});
