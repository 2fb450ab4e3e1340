import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

	describe('against an API that answers without a body', () => {
		let api: { url: string; posts: unknown[]; close: () => Promise<void> };
		let reply: { status: number; headers: Record<string, string> };
		beforeAll(async () => {
			const posts: unknown[] = [];
			const server = createServer((req, res) => {
				let text = '';
				req.on('data', (chunk: Buffer) => (text += chunk.toString()));
				req.on('end', () => {
					posts.push(JSON.parse(text));
					res.writeHead(reply.status, reply.headers);
					res.end();
				});
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			api = {
				url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
				posts,
				close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
			};
		});
		afterAll(async () => await api.close());
		beforeEach(() => {
			api.posts.length = 0;
		});

		const createThere = () =>
			runNode({
				credentials: { ...credentialsFor(sandbox), baseUrl: api.url },
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: byId('biz_1'),
					firstName: 'Ada',
					lastName: 'Lovelace',
					additionalFields: { email: 'ada@example.com' },
				},
			});
		const sent = {
			businessId: 'biz_1',
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
		};

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
			const { error } = await runNode({
				credentials: { ...credentialsFor(sandbox), baseUrl: api.url },
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: byId('biz_1'),
					firstName: 'Ada',
					lastName: 'Lovelace',
					additionalFields: {
						customFields: {
							field: Object.keys(values).map((name) => ({
								name,
								value: `={{ $json.${name} }}`,
							})),
						},
					},
				},
				items: [values],
			});
			expect(error).toBeUndefined();
			expect(api.posts).toEqual([
				{
					businessId: 'biz_1',
					firstName: 'Ada',
					lastName: 'Lovelace',
					count: 42,
					ratio: 0.5,
					vip: true,
					optOut: false,
					note: null,
					tags: ['a', 'b'],
					address: { city: 'London' },
					digits: '42',
					word: 'yes',
				},
			]);
		});

		it('refuses a custom field number JSON cannot hold (Infinity, NaN), naming the field', async () => {
			const { items, error } = await runNode({
				credentials: { ...credentialsFor(sandbox), baseUrl: api.url },
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: byId('biz_1'),
					firstName: 'Ada',
					lastName: 'Lovelace',
					additionalFields: {
						customFields: { field: [{ name: 'score', value: '={{ 1 / 0 }}' }] },
					},
				},
				onError: 'continueRegularOutput',
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual([
				{
					error:
						'Custom field "score" is Infinity, which JSON cannot hold. Give the custom field a finite number, or text.',
				},
			]);
			expect(api.posts).toEqual([]);
		});
	});
});
