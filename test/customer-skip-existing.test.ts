import { startSandbox, type Sandbox } from './sandbox/server';
import { runNode } from './helpers/harness';
import { byId, credentialsFor, requestsTo } from './helpers/fixtures';

const ADD = '/api/business/crm/customer/add';
const CUSTOMERS = '/api/public/v1/customers';

interface Row {
	firstName: string;
	lastName: string;
	email?: string;
	phone?: string;
}

describe('Customer › Create › Options › Skip Existing', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.clearLog();
		sandbox.seedCustomers(250);
	});

	const importRows = (rows: Row[], skipExisting?: string, onError?: 'continueRegularOutput') =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'create',
				businessId: byId(sandbox.businesses[0].id),
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}', phone: '={{ $json.phone }}' },
				options: skipExisting ? { skipExisting } : {},
			},
			items: rows as never,
			onError,
		});

	const countByEmail = (email: string) =>
		sandbox.customers.filter((c) => String(c.email).toLowerCase() === email.toLowerCase()).length;

	it('creates only the rows whose email is new, reading the list once for all rows', async () => {
		const [known1, known2] = [sandbox.customers[5], sandbox.customers[230]];
		const rows: Row[] = [
			{ firstName: 'New', lastName: 'One', email: 'new.one@example.com' },
			{ firstName: 'X', lastName: 'Y', email: ` ${String(known1.email).toUpperCase()} ` },
			{ firstName: 'New', lastName: 'Two', email: 'new.two@example.com' },
			{ firstName: 'X', lastName: 'Z', email: String(known2.email) },
		];
		const { items, error } = await importRows(rows, 'email');
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.skipped)).toEqual([false, true, false, true]);
		expect(items[1].json).toEqual({ skipped: true, matchedOn: 'email', customer: known1 });
		expect(items[3].json).toEqual({ skipped: true, matchedOn: 'email', customer: known2 });
		expect(items[0].json.customer).toMatchObject({ email: 'new.one@example.com' });
		expect(items.map((item) => item.pairedItem)).toEqual(rows.map((_, item) => ({ item })));
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
		expect(requestsTo(sandbox, ADD).map((r) => (r.body as Row).email)).toEqual([
			'new.one@example.com',
			'new.two@example.com',
		]);
		// The list is read before any Create, so a row never meets its own run's customers there.
		expect(sandbox.requests.slice(0, 3).every((r) => r.path === CUSTOMERS)).toBe(true);
		expect(sandbox.customers).toHaveLength(252);
	});

	it('creates one customer for rows of one run with the same key; the others output it as skipped', async () => {
		const rows: Row[] = [
			{ firstName: 'Ada', lastName: 'Lovelace', phone: '+1 (555) 010-0199' },
			{ firstName: 'Ada', lastName: 'L.', phone: '15550100199' },
			{ firstName: 'Bob', lastName: 'Other', phone: '+44 20 7946 0000' },
			{ firstName: 'Ada', lastName: 'Again', phone: '1-555-010-0199' },
		];
		const { items, error } = await importRows(rows, 'phone');
		expect(error).toBeUndefined();
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		expect(items.map((item) => item.json.skipped)).toEqual([false, true, false, true]);
		const created = items[0].json.customer as { id: string };
		expect(items[1].json).toEqual({ skipped: true, matchedOn: 'phone', customer: created });
		expect(items[3].json).toEqual({ skipped: true, matchedOn: 'phone', customer: created });
		expect(sandbox.customers.filter((c) => c.phone === '+1 (555) 010-0199')).toHaveLength(1);
	});

	it('matches on first and last name, trimmed and case-blind, and a second run creates nothing', async () => {
		const rows: Row[] = [
			{ firstName: 'Grace', lastName: 'Hopper' },
			{ firstName: ' grace ', lastName: 'HOPPER' },
			{ firstName: 'Grace', lastName: 'Brewster' },
		];
		const first = await importRows(rows, 'name');
		expect(first.items.map((item) => item.json.skipped)).toEqual([false, true, false]);
		sandbox.clearLog();
		const second = await importRows(rows, 'name');
		expect(second.items.map((item) => item.json.skipped)).toEqual([true, true, true]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('creates rows whose key is empty as usual, each one', async () => {
		const rows: Row[] = [
			{ firstName: 'No', lastName: 'Mail' },
			{ firstName: 'No', lastName: 'Mail', email: '   ' },
		];
		const { items } = await importRows(rows, 'email');
		expect(items.map((item) => item.json.skipped)).toEqual([false, false]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
	});

	it('with Continue On Fail, a refused row is reported on its item and a later row with its key is tried again', async () => {
		const known = sandbox.customers[0];
		const rows: Row[] = [
			{ firstName: 'Bad', lastName: 'Mail', email: 'not-an-address' },
			{ firstName: 'Good', lastName: 'Mail', email: 'NOT-AN-ADDRESS ' },
			{ firstName: 'Dup', lastName: 'Licate', email: String(known.email) },
		];
		const { items, error } = await importRows(rows, 'email', 'continueRegularOutput');
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json.error).toMatch(/email must be a valid email address/);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		// Row 2 has row 1's key; row 1 created nothing, so row 2 is tried and refused on its own.
		expect(items[1].json.error).toMatch(/email must be a valid email address/);
		expect(items[2].json).toEqual({ skipped: true, matchedOn: 'email', customer: known });
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		expect(countByEmail('not-an-address')).toBe(0);
	});

	it('with Continue On Fail, a list that cannot be read fails every row and creates nothing', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 503 } });
		try {
			const rows: Row[] = [
				{ firstName: 'A', lastName: 'B', email: 'a@example.com' },
				{ firstName: 'C', lastName: 'D', email: 'c@example.com' },
			];
			const run = runNode({
				credentials: credentialsFor(sandbox),
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: byId(sandbox.businesses[0].id),
					firstName: '={{ $json.firstName }}',
					lastName: '={{ $json.lastName }}',
					additionalFields: { email: '={{ $json.email }}' },
					options: { skipExisting: 'email', maxRetries: 0 },
				},
				items: rows as never,
				onError: 'continueRegularOutput',
			});
			const { items } = await run;
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			for (const item of items) expect(item.json.error).toMatch(/^Read the customer list failed/);
			expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(1);
			expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		} finally {
			sandbox.resetFaults();
		}
	});

	it('without the option, creates as before: no list read, the record unwrapped', async () => {
		const known = sandbox.customers[0];
		const { items } = await importRows([
			{ firstName: 'Dup', lastName: 'Licate', email: String(known.email) },
		]);
		expect(items[0].json).toMatchObject({ email: known.email, firstName: 'Dup' });
		expect(items[0].json.skipped).toBeUndefined();
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
		expect(countByEmail(String(known.email))).toBe(2);
	});

	it('refuses an unknown Skip Existing value on the item', async () => {
		const { error } = await importRows([{ firstName: 'A', lastName: 'B' }], 'fax');
		expect(error?.message).toBe('Skip Existing must be email, phone or name, not "fax"');
		expect(error?.description).toBe(
			'Pick Email, Phone or First and Last Name under Options › Skip Existing, or remove the option.',
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('a Skip Existing from an expression that gives nothing (null, empty text, no value) creates as usual', async () => {
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'create',
				businessId: byId(sandbox.businesses[0].id),
				firstName: '={{ $json.firstName }}',
				lastName: 'Lovelace',
				options: { skipExisting: '={{ $json.skip }}' },
			},
			items: [
				{ firstName: 'Null', skip: null },
				{ firstName: 'Empty', skip: '' },
				{ firstName: 'Absent' },
			],
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.firstName, item.json.skipped])).toEqual([
			['Null', undefined],
			['Empty', undefined],
			['Absent', undefined],
		]);
		expect(requestsTo(sandbox, ADD)).toHaveLength(3);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('rows whose key is empty do not wait for one another: they are created at once', async () => {
		sandbox.seedCustomers(5);
		sandbox.setFaults({ slow: { path: ADD, delayMs: 100 } });
		try {
			const rows: Row[] = [
				{ firstName: 'No', lastName: 'Mail' },
				{ firstName: 'No', lastName: 'Mail', email: '   ' },
				{ firstName: 'Still', lastName: 'None' },
			];
			const { items, error } = await importRows(rows, 'email');
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.skipped)).toEqual([false, false, false]);
			expect(requestsTo(sandbox, ADD)).toHaveLength(3);
			expect(sandbox.maxInFlight).toBe(3);
		} finally {
			sandbox.resetFaults();
		}
	});
});
