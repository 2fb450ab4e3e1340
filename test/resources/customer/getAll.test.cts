import { type Sandbox } from '../../sandbox/server.cjs';
import { runNode } from '../../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo, useSandbox } from '../../helpers/fixtures.cjs';
import { EMPTY_FILTER } from '../../../nodes/BusinessCrm/resources/customer/getAll';

const CUSTOMERS = '/api/public/v1/customers';

/** Pages read at once arrive in any order. */
const inOffsetOrder = (queries: Array<Record<string, string>>) =>
	[...queries].sort((a, b) => Number(a.offset) - Number(b.offset));

describe('Customer › Get Many', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 3 }, {}, (started) => (sandbox = started));

	const getMany = (parameters: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: { resource: 'customer', operation: 'getAll', ...parameters },
			items: items as never,
		});

	it.each([0, 1, 99, 100, 101, 199, 200, 250, 10_000])(
		'Return All over %i customers outputs each once, in order, in max(1, ceil((N-1)/99)) requests',
		async (count) => {
			sandbox.seedCustomers(count);
			const { items, error } = await getMany({ returnAll: true });
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(items[0]?.json).toEqual(sandbox.customers[0]);

			// Pages of 100 overlap by one item, so that the reader sees whether they join up: each
			// page begins with the last item of the page before, at offsets 0, 99, 198, ...
			const requests = requestsTo(sandbox, CUSTOMERS);
			const pages = Math.max(1, Math.ceil((count - 1) / 99));
			expect(requests).toHaveLength(pages);
			expect(inOffsetOrder(requests.map((request) => request.query))).toEqual(
				Array.from({ length: pages }, (_, page) => ({ limit: '100', offset: String(page * 99) })),
			);
			expect(requests.every((request) => request.method === 'GET' && request.status === 200)).toBe(
				true,
			);
		},
	);

	// After the first page, a page asks for what is still wanted plus the item it repeats.
	it.each([
		[1, [{ limit: '1', offset: '0' }]],
		[20, [{ limit: '20', offset: '0' }]],
		[100, [{ limit: '100', offset: '0' }]],
		[
			101,
			[
				{ limit: '100', offset: '0' },
				{ limit: '2', offset: '99' },
			],
		],
		[
			250,
			[
				{ limit: '100', offset: '0' },
				{ limit: '100', offset: '99' },
				{ limit: '52', offset: '198' },
			],
		],
	])('Limit %i returns the first customers with the fewest requests', async (limit, queries) => {
		sandbox.seedCustomers(300);
		const { items } = await getMany({ returnAll: false, limit });
		expect(items.map((item) => item.json.id)).toEqual(
			sandbox.customers.slice(0, limit).map((c) => c.id),
		);
		expect(inOffsetOrder(requestsTo(sandbox, CUSTOMERS).map((request) => request.query))).toEqual(
			queries,
		);
	});

	it('a customer without an id at the end of a page is output once, not again by the next page', async () => {
		sandbox.seedCustomers(150);
		const noId = { ...sandbox.customers[99] } as Record<string, unknown>;
		delete noId.id;
		sandbox.customers[99] = noId as never;
		const { items, error } = await getMany({ returnAll: true });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(sandbox.customers);
	});

	it('stops early when the list is shorter than the limit', async () => {
		sandbox.seedCustomers(30);
		const { items } = await getMany({ returnAll: false, limit: 250 });
		expect(items).toHaveLength(30);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(1);
	});

	it('runs once per input item, with a limit from an expression, and pairs every item', async () => {
		sandbox.seedCustomers(10);
		const { items } = await getMany({ returnAll: false, limit: '={{ $json.take }}' }, [
			{ take: 2 },
			{ take: 3 },
		]);
		expect(items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			[sandbox.customers[0].id, { item: 0 }],
			[sandbox.customers[1].id, { item: 0 }],
			[sandbox.customers[0].id, { item: 1 }],
			[sandbox.customers[1].id, { item: 1 }],
			[sandbox.customers[2].id, { item: 1 }],
		]);
		expect(requestsTo(sandbox, CUSTOMERS).map((request) => request.query.limit)).toEqual([
			'2',
			'3',
		]);
	});

	it('treats an empty page as empty, not as an error', async () => {
		sandbox.seedCustomers(0);
		const { items, error } = await getMany({ returnAll: false, limit: 5 });
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});

	describe('Filters › Business', () => {
		const ofBusiness = (index: number) =>
			sandbox.customers.filter((c) => c.businessId === sandbox.businesses[index].id);
		const filtered = (index: number, parameters: Record<string, unknown>) =>
			getMany({ filters: { businessId: byId(sandbox.businesses[index].id) }, ...parameters });

		it('a numeric business ID, from an expression or in the records, matches as its digits', async () => {
			sandbox.seedCustomers(30);
			const numbered = [sandbox.customers[2], sandbox.customers[17]];
			for (const customer of numbered) customer.businessId = 7 as unknown as string;
			// The business must exist: an unknown one is an error (test/trigger/businessFilter.test.cts).
			sandbox.businesses.push({ ...sandbox.businesses[0], id: '7' });
			try {
				const { items, error } = await getMany({
					filters: { businessId: { __rl: true, mode: 'id', value: '={{ 7 }}' } },
					returnAll: true,
				});
				expect(error).toBeUndefined();
				expect(items.map((item) => item.json)).toEqual(numbered);
			} finally {
				sandbox.businesses.pop();
			}
		});

		it('Return All gives every customer of the business, in list order, in max(1, ceil((N-1)/99)) requests', async () => {
			sandbox.seedCustomers(250);
			const { items, error } = await filtered(1, { returnAll: true });
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(ofBusiness(1));
			expect(items).toHaveLength(83);
			expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
		});

		it('Return All over 199 customers reads the 2 pages and no third one that would only repeat the last', async () => {
			// 199 fill two overlapping pages (0-99 and 99-198) exactly: a page at 198 would bring
			// nothing new.
			sandbox.seedCustomers(199);
			const { items, error } = await filtered(1, { returnAll: true });
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(ofBusiness(1));
			expect(inOffsetOrder(requestsTo(sandbox, CUSTOMERS).map((r) => r.query))).toEqual([
				{ limit: '100', offset: '0' },
				{ limit: '100', offset: '99' },
			]);
		});

		it('Limit: customers added at the top of the list during the read do not make one appear twice', async () => {
			sandbox.seedCustomers(300);
			const expected = ofBusiness(0).slice(0, 40);
			// The first page read, 2 customers of another business are added before it, once: the
			// second page then starts with the last 3 customers of the first page (one more than the
			// item it repeats anyway). The pages do not join up, so the list is read again.
			let added = false;
			sandbox.onRequest = (entry) => {
				if (!added && entry.path === CUSTOMERS && entry.query.offset === '99') {
					added = true;
					sandbox.addCustomers(2, { at: 0, businessId: sandbox.businesses[1].id });
				}
			};
			try {
				const { items, error } = await filtered(0, { returnAll: false, limit: 40 });
				expect(error).toBeUndefined();
				expect(added).toBe(true);
				expect(items.map((item) => item.json.id)).toEqual(expected.map((c) => c.id));
				// The moved read, then a read whose pages join up.
				const firstPages = requestsTo(sandbox, CUSTOMERS).filter((r) => r.query.offset === '0');
				expect(firstPages).toHaveLength(2);
			} finally {
				sandbox.onRequest = undefined;
			}
		});

		it('Limit: customers without an id are all kept', async () => {
			sandbox.seedCustomers(30);
			const idless = ofBusiness(0).slice(0, 3);
			for (const customer of idless) delete (customer as { id?: string }).id;
			const { items, error } = await filtered(0, { returnAll: false, limit: 5 });
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(ofBusiness(0).slice(0, 5));
			expect(items.slice(0, 3).map((item) => item.json.id)).toEqual([
				undefined,
				undefined,
				undefined,
			]);
		});

		it('Limit counts the customers of the business and reads only the pages it needs', async () => {
			sandbox.seedCustomers(300);
			const five = await filtered(0, { returnAll: false, limit: 5 });
			expect(five.items.map((item) => item.json)).toEqual(ofBusiness(0).slice(0, 5));
			expect(requestsTo(sandbox, CUSTOMERS).map((r) => r.query)).toEqual([
				{ limit: '100', offset: '0' },
			]);
			sandbox.clearLog();
			// 34 of the first 100 customers belong to business 0: the 40th is on the second page,
			// which begins with the first page's last customer.
			const forty = await filtered(0, { returnAll: false, limit: 40 });
			expect(forty.items.map((item) => item.json)).toEqual(ofBusiness(0).slice(0, 40));
			expect(requestsTo(sandbox, CUSTOMERS).map((r) => r.query)).toEqual([
				{ limit: '100', offset: '0' },
				{ limit: '100', offset: '99' },
			]);
		});

		it('Limit above the matches gives them all, ending where the list ends', async () => {
			sandbox.seedCustomers(250);
			const { items } = await filtered(2, { returnAll: false, limit: 500 });
			expect(items.map((item) => item.json)).toEqual(ofBusiness(2));
			// The first page gives the total; 99 and 198 are then read at once, in any order.
			expect(
				requestsTo(sandbox, CUSTOMERS)
					.map((r) => Number(r.query.offset))
					.sort((a, b) => a - b),
			).toEqual([0, 99, 198]);
		});

		it('trims the business ID; an unknown business is an error; an empty one too, never every business', async () => {
			sandbox.seedCustomers(30);
			const trimmed = await getMany({
				returnAll: true,
				filters: { businessId: byId(`  ${sandbox.businesses[1].id} `) },
			});
			expect(trimmed.items.map((item) => item.json)).toEqual(ofBusiness(1));
			const none = await getMany({ returnAll: true, filters: { businessId: byId('biz_unknown') } });
			expect(none.error?.message).toBe('No business biz_unknown in this organization');
			const empty = await getMany({ returnAll: true, filters: { businessId: byId('') } });
			expect(empty.items).toEqual([]);
			expect(empty.error?.message).toBe(EMPTY_FILTER);
		});

		it('a business check that failed is asked once per run: every item reports the same error', async () => {
			sandbox.seedCustomers(10);
			const business = sandbox.businesses[1].id;
			const check = `/api/business/${business}`;
			// The check fails once (past Max Retries 0); the API would answer a second time.
			sandbox.setFaults({ serverError: { path: check, count: 1, status: 500 } });
			try {
				const { items } = await runNode({
					credentials: credentialsFor(sandbox),
					parameters: {
						resource: 'customer',
						operation: 'getAll',
						returnAll: true,
						filters: { businessId: byId(business) },
						options: { maxRetries: 0 },
					},
					items: [{ json: {} }, { json: {} }] as never,
					onError: 'continueRegularOutput',
				});
				const errors = items.map((item) => String(item.json.error));
				expect(errors).toHaveLength(2);
				expect(errors[0]).toMatch(/^Check the business failed/);
				expect(errors[1]).toBe(errors[0]);
				expect(requestsTo(sandbox, check)).toHaveLength(1);
			} finally {
				sandbox.resetFaults();
			}
		});
	});
});
