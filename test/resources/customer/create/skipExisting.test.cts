import { request as httpRequest } from 'node:http';
import { sleep, type IDataObject, type INodeParameters } from 'n8n-workflow';
import { type Sandbox, type SandboxCustomer } from '../../../sandbox/server.cjs';
import { runChain, runNode, type ChainedNode } from '../../../helpers/harness.cjs';
import {
	startApi,
	startCreateApi,
	type CreateApi,
	type ScriptedApi,
} from '../../../helpers/scripted-api.cjs';
import {
	byId,
	credentialsFor,
	requestsTo,
	useSandbox,
	createAda,
} from '../../../helpers/fixtures.cjs';
import {
	EARLIER_MAYBE_CREATED,
	NO_MATCH_VALUE_CHOICES,
	NO_MATCH_VALUE_TO_ERROR_OUTPUT,
	SWITCH_HELP,
	UNPLACED_FIX,
} from '../../../../nodes/BusinessCrm/resources/customer/create/skipExisting';
import {
	OWN_MARK_FIELD,
	OWN_MARK_FIELD_FIX,
	SKIP_MARK as MARK,
	skipResult,
	WAS_CREATED,
} from '../../../../nodes/BusinessCrm/resources/customer/create/mark';
import { SKIP_MARK_FIELD_HELP } from '../../../../nodes/BusinessCrm/resources/customer/create/body';
import { skipMark } from '../../../helpers/skip-mark.cjs';
import { previewResult } from '../../../../nodes/BusinessCrm/resources/customer/create/preview';

const ADD = '/api/business/crm/customer/add';
const CUSTOMERS = '/api/public/v1/customers';

interface Row {
	firstName: string;
	lastName: string;
	email?: string;
	phone?: string;
	[field: string]: unknown;
}

const mark = skipMark;

describe('Customer › Create › Skip if the Customer Already Exists', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 250 }, (started) => (sandbox = started));

	const business = () => sandbox.businesses[0].id;
	/** Seeded customers of the first business that have every field. */
	const ofFirstBusiness = () =>
		sandbox.customers.filter((c) => c.businessId === business() && c.email && c.phone);

	const importRows = (
		rows: Row[],
		skip: INodeParameters | false = { matchOn: 'email' },
		onError?: 'continueRegularOutput' | 'continueErrorOutput',
		extra: INodeParameters = {},
		mode?: 'manual' | 'trigger',
	) =>
		runNode({
			mode,
			credentials: credentialsFor(sandbox),
			parameters: createAda(business(), {
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}', phone: '={{ $json.phone }}' },
				...(skip ? { skipExisting: true, ...skip } : {}),
				...extra,
			}),
			items: rows as never,
			onError,
		});

	const countByEmail = (email: string) =>
		sandbox.customers.filter((c) => String(c.email).toLowerCase() === email.toLowerCase()).length;

	it('creates only the rows whose email is new, reading the list once for all rows', async () => {
		const [known1, known2] = [ofFirstBusiness()[2], ofFirstBusiness()[110]];
		const rows: Row[] = [
			{ firstName: 'New', lastName: 'One', email: 'new.one@example.com' },
			{ firstName: 'X', lastName: 'Y', email: ` ${String(known1.email).toUpperCase()} ` },
			{ firstName: 'New', lastName: 'Two', email: 'new.two@example.com' },
			{ firstName: 'X', lastName: 'Z', email: String(known2.email) },
		];
		const { items, error } = await importRows(rows);
		expect(error).toBeUndefined();
		expect(items.map((item) => (item.json[MARK] as IDataObject).skipped)).toEqual([
			false,
			true,
			false,
			true,
		]);
		expect(items[1].json).toEqual({ ...known1, [MARK]: mark('alreadyExists') });
		expect(items[3].json).toEqual({ ...known2, [MARK]: mark('alreadyExists') });
		expect(items[0].json).toMatchObject({ email: 'new.one@example.com', [MARK]: mark('created') });
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
		const { items, error } = await importRows(rows, { matchOn: 'phone' });
		expect(error).toBeUndefined();
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		const created = { ...items[0].json };
		delete created[MARK];
		expect(items[0].json[MARK]).toEqual(mark('created', 'phone'));
		expect(items[1].json).toEqual({ ...created, [MARK]: mark('alreadyExists', 'phone') });
		expect(items[2].json[MARK]).toEqual(mark('created', 'phone'));
		expect(items[3].json).toEqual({ ...created, [MARK]: mark('alreadyExists', 'phone') });
		expect(sandbox.customers.filter((c) => c.phone === '+1 (555) 010-0199')).toHaveLength(1);
	});

	it('on Phone, a number typed without its country code matches the stored one, and nothing is created', async () => {
		const known = ofFirstBusiness()[0];
		const digits = String(known.phone).replace(/\D/g, '').slice(1);
		const phone = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
		const { items, error } = await importRows([{ firstName: 'Ada', lastName: 'Lovelace', phone }], {
			matchOn: 'phone',
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(requestsTo(sandbox, ADD)).toEqual([]);
		expect(sandbox.customers).toHaveLength(250);
	});

	it('matches on first and last name, trimmed and case-blind, and a second run creates nothing', async () => {
		const rows: Row[] = [
			{ firstName: 'Grace', lastName: 'Hopper' },
			{ firstName: ' grace ', lastName: 'HOPPER' },
			{ firstName: 'Grace', lastName: 'Brewster' },
		];
		const outcomes = (items: Array<{ json: IDataObject }>) =>
			items.map((item) => (item.json[MARK] as IDataObject).outcome);
		const first = await importRows(rows, { matchOn: 'name' });
		expect(outcomes(first.items)).toEqual(['created', 'alreadyExists', 'created']);
		sandbox.clearLog();
		const second = await importRows(rows, { matchOn: 'name' });
		expect(outcomes(second.items)).toEqual(['alreadyExists', 'alreadyExists', 'alreadyExists']);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('with Continue On Fail, a refused row is reported on its item and a later row with its key is tried again', async () => {
		const known = ofFirstBusiness()[0];
		const rows: Row[] = [
			{ firstName: 'Bad', lastName: 'Mail', email: 'not-an-address' },
			{ firstName: 'Good', lastName: 'Mail', email: 'NOT-AN-ADDRESS ' },
			{ firstName: 'Dup', lastName: 'Licate', email: String(known.email) },
		];
		const { items, error } = await importRows(rows, undefined, 'continueRegularOutput');
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json.error).toMatch(/email must be a valid email address/);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		// Row 2 has row 1's key; a 400 proves nothing was created, so row 2 is tried and refused on its own.
		expect(items[1].json.error).toMatch(/email must be a valid email address/);
		expect(items[2].json).toEqual({ ...known, [MARK]: mark('alreadyExists') });
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		expect(countByEmail('not-an-address')).toBe(0);
	});

	it('with Continue On Fail, a list that cannot be read fails every row and creates nothing', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 503 } });
		const rows: Row[] = [
			{ firstName: 'A', lastName: 'B', email: 'a@example.com' },
			{ firstName: 'C', lastName: 'D', email: 'c@example.com' },
		];
		const { items } = await importRows(rows, { matchOn: 'email' }, 'continueRegularOutput', {
			options: { maxRetries: 0 },
		});
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of items) {
			expect(item.json.error).toMatch(/^Row \d \(\w \w\): Read the customer list failed/);
		}
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(1);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});

	it('a list that cannot be read is read once, though later rows share an email: the run has stopped', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 403 } });
		// Rows 1, 4, 7 and 10 share an email, so each waits for the one before it. A failed read is
		// read again by whoever asks next: each of them read the list again after the run had
		// stopped (with a 5xx, its retries and their waits too), one after another.
		const rows: Row[] = Array.from({ length: 10 }, (_, n) => ({
			firstName: `First${n + 1}`,
			lastName: `Last${n + 1}`,
			email: n % 3 === 0 ? 'shared@example.com' : `row${n + 1}@example.com`,
		}));
		const { error, items } = await importRows(rows);
		expect(error?.message).toMatch(
			/^Row 1 \(First1 Last1\): Read the customer list failed: the Business CRM API answered 403/,
		);
		expect(items).toEqual([]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(1);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});

	it('when off, creates as before in a production run: no list read, the record unwrapped and unmarked', async () => {
		const known = sandbox.customers[0];
		const { items } = await importRows(
			[{ firstName: 'Dup', lastName: 'Licate', email: String(known.email) }],
			false,
			undefined,
			{},
			'trigger',
		);
		expect(items[0].json).toMatchObject({ email: known.email, firstName: 'Dup' });
		expect(items[0].json[MARK]).toBeUndefined();
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
		expect(countByEmail(String(known.email))).toBe(2);
	});

	it('refuses unknown values of the switch and its settings on the item, saying how to fix them', async () => {
		const pick = (label: string) =>
			`Pick one of the choices under ${label}, or make its expression give one of these values.`;
		const cases: Array<[INodeParameters, string, string]> = [
			[
				{ skipExisting: 'yes' },
				'Skip if the Customer Already Exists must be true or false, not "yes"',
				SWITCH_HELP,
			],
			[
				{ skipExisting: true, matchOn: 'fax' },
				'Match On must be email, phone or name, not "fax"',
				pick('Match On'),
			],
			[
				{ skipExisting: true, matchWithin: 'planet' },
				'Match Within must be business or all, not "planet"',
				pick('Match Within'),
			],
			[
				{ skipExisting: true, noMatchValue: 'maybe' },
				'Rows Without a Match Value must be skip, create or error, not "maybe"',
				pick('Rows Without a Match Value'),
			],
		];
		for (const [parameters, message, description] of cases) {
			const { error } = await importRows(
				[{ firstName: 'A', lastName: 'B' }],
				false,
				undefined,
				parameters,
			);
			expect(error?.message).toBe(message);
			expect(error?.description).toBe(description);
		}
		expect(sandbox.requests).toHaveLength(0);
	});

	it('a switch from an expression that gives true or false as text is read as such', async () => {
		const { items, error } = await importRows(
			[
				{ firstName: 'On', lastName: 'Text', email: 'on@example.com', skip: 'true' },
				{ firstName: 'Off', lastName: 'Text', email: 'off@example.com', skip: 'false' },
			],
			false,
			undefined,
			{ skipExisting: '={{ $json.skip }}' },
		);
		expect(error).toBeUndefined();
		expect(items[0].json[MARK]).toEqual(mark('created'));
		expect(items[1].json[MARK]).toBeUndefined();
	});

	it('with Create Anyway, rows whose key is empty do not wait for one another: they are created at once', async () => {
		sandbox.seedCustomers(5);
		sandbox.setFaults({ slow: { path: ADD, delayMs: 100 } });
		const rows: Row[] = [
			{ firstName: 'No', lastName: 'Mail' },
			{ firstName: 'No', lastName: 'Mail', email: '   ' },
			{ firstName: 'Still', lastName: 'None' },
		];
		const { items, error } = await importRows(rows, { matchOn: 'email', noMatchValue: 'create' });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json[MARK])).toEqual(
			rows.map(() => mark('createdNoMatchValue')),
		);
		expect(requestsTo(sandbox, ADD)).toHaveLength(3);
		expect(sandbox.maxInFlight).toBe(3);
	});

	describe('a re-run row after an ambiguous Create is not sent again', () => {
		const twoRows: Row[] = [
			{ firstName: 'Ann', lastName: 'First', email: 'ann@example.com' },
			{ firstName: 'Ann', lastName: 'Again', email: 'ANN@example.com' },
		];
		const NOT_SENT =
			'Row 2 (Ann Again): Create customer not sent: row 1 of this run, with the same email, may have created this customer';

		it.each([
			[
				'a timeout after sending',
				{ slow: { path: ADD, count: 1, delayMs: 700 } },
				/no answer within 0\.3 s/,
			],
			['a 502 from a proxy', { serverError: { path: ADD, count: 1, status: 502 } }, /answered 502/],
			['a 500 from the API', { serverError: { path: ADD, count: 1, status: 500 } }, /answered 500/],
			[
				'a dropped connection',
				{ dropConnection: { path: ADD, count: 1 } },
				/connection was closed/,
			],
		])('after %s', async (_, faults, firstError) => {
			sandbox.setFaults(faults);
			const { items } = await importRows(twoRows, undefined, 'continueRegularOutput', {
				requestOptions: { timeout: 300 },
			});
			expect(items[0].json.error).toMatch(firstError);
			expect(items[0].json.error).toMatch(/may or may not have been created/);
			expect(items[1].json.error).toBe(`${NOT_SENT}. ${EARLIER_MAYBE_CREATED}`);
			// Not an input the user can fix: the kind a model or an If reads says so.
			expect(items[1].json.errorType).toBe('unknownOutcome');
			expect(items[1].pairedItem).toEqual({ item: 1 });
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
			if ('slow' in faults) {
				// The API adds the customer after the node stopped waiting: row 2 would have been a twin.
				for (let waited = 0; countByEmail('ann@example.com') === 0 && waited < 3000; waited += 20) {
					await sleep(20);
				}
				expect(countByEmail('ann@example.com')).toBe(1);
			}
		});

		it('a 2xx whose body cannot be read counts as maybe created', async () => {
			sandbox.setFaults({ notJson: { path: ADD, count: 1 } });
			const { items } = await importRows(twoRows, undefined, 'continueRegularOutput');
			expect(String(items[1].json.error).startsWith(NOT_SENT)).toBe(true);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('one phone number in another format after a 502 is not sent either', async () => {
			sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
			const rows: Row[] = [
				{ firstName: 'Ann', lastName: 'First', phone: '+1 303 555 0236' },
				{ firstName: 'Ann', lastName: 'Again', phone: '(303) 555-0236' },
			];
			const { items } = await importRows(rows, { matchOn: 'phone' }, 'continueRegularOutput');
			expect(items[0].json.error).toMatch(/answered 502/);
			expect(items[1].json.error).toMatch(
				/^Row 2 \(Ann Again\): Create customer not sent: row 1 of this run, with the same phone, may have created this customer/,
			);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('without Continue On Fail the node stops on the first row and the second is not sent either', async () => {
			sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 503 } });
			const { error } = await importRows(twoRows);
			expect(error?.message).toMatch(/answered 503/);
			await sleep(50);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('a row of another business is sent: only a match could have been created', async () => {
			sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
			const { items } = await importRows(
				[
					{ ...twoRows[0], business: sandbox.businesses[0].id },
					{ ...twoRows[1], business: sandbox.businesses[1].id },
				],
				{ matchOn: 'email' },
				'continueRegularOutput',
				{ businessId: byId('={{ $json.business }}' as string) },
			);
			expect(items[0].json.error).toMatch(/answered 502/);
			expect(items[1].json[MARK]).toEqual(mark('created'));
			expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		});

		it('after a 429 past the retries, the next row with the key is sent', async () => {
			sandbox.setFaults({ rateLimitBurst: { path: ADD, count: 1, retryAfter: 0 } });
			const { items } = await importRows(twoRows, undefined, 'continueRegularOutput', {
				options: { maxRetries: 0 },
			});
			expect(items[0].json.error).toMatch(/answered 429/);
			expect(items[1].json).toMatchObject({
				firstName: 'Ann',
				lastName: 'Again',
				[MARK]: mark('created'),
			});
			expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		});

		describe('after a connection refused before sending', () => {
			let proxy: ScriptedApi;
			beforeAll(async () => {
				// A forward proxy that serves one list read, then stops listening: the Create sent
				// through it next finds nothing to connect to.
				proxy = await startApi((request, target, response) => {
					const upstream = httpRequest(
						target,
						{ method: request.method, headers: { ...request.headers, 'x-test-proxy': '1' } },
						(reply) => {
							response.writeHead(reply.statusCode ?? 502, reply.headers);
							reply.pipe(response);
						},
					);
					request.pipe(upstream);
					response.on('finish', () => void proxy.close());
				});
			});
			afterAll(async () => await proxy.close());

			it('the next row with the key is sent', async () => {
				sandbox.seedCustomers(5);
				// Row 0 goes through the proxy; row 1 reads its own list later, so row 0 creates first.
				sandbox.onRequest = async (entry) => {
					if (entry.path === CUSTOMERS && entry.headers['x-test-proxy'] === undefined) {
						await sleep(300);
					}
				};
				const { items } = await importRows(
					[
						{ ...twoRows[0], proxy: proxy.url },
						{ ...twoRows[1], proxy: '' },
					],
					{ matchOn: 'email' },
					'continueRegularOutput',
					{ requestOptions: { proxy: '={{ $json.proxy }}' } },
				);
				expect(proxy.urls).toHaveLength(1);
				expect(items[0].json.error).toMatch(/refused the connection/);
				expect(items[0].json.error).not.toMatch(/may or may not/);
				expect(items[1].json).toMatchObject({ lastName: 'Again', [MARK]: mark('created') });
				expect(requestsTo(sandbox, ADD)).toHaveLength(1);
			});
		});
	});

	describe('a row without the key is not silently created twice', () => {
		const rows: Row[] = [
			{ firstName: 'Has', lastName: 'Mail', email: 'has.mail@example.com' },
			{ firstName: 'No', lastName: 'Mail' },
			{ firstName: 'Blank', lastName: 'Mail', email: '   ', phone: '+1 555 0100' },
		];

		const noEmailError =
			'Email is empty, so the node cannot tell whether this customer already exists';
		// The advice leaves out Settings › On Error when the row is already on the error output.
		const noEmail = `${noEmailError}. Give this row an email. ${NO_MATCH_VALUE_CHOICES}`;
		const noEmailStopped = `${noEmailError}. Give this row an email. ${NO_MATCH_VALUE_TO_ERROR_OUTPUT} ${NO_MATCH_VALUE_CHOICES}`;

		it('by default such a row is an error, so no row is silently left out', async () => {
			const { items, errorItems } = await importRows(
				rows,
				{ matchOn: 'email' },
				'continueErrorOutput',
			);
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
			expect(errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
				[{ item: 1 }, `Row 2 (No Mail): ${noEmail}`],
				[{ item: 2 }, `Row 3 (Blank Mail): ${noEmail}`],
			]);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('by default, without an error output, such a row stops the node with the fix', async () => {
			const { error } = await importRows([rows[1]]);
			expect(error?.message).toBe(noEmailError);
			expect(`${noEmailError}. ${error?.description}`).toBe(noEmailStopped);
			expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		});

		it('with On Error on Continue (regular output), the advice still names the error output, which that setting is not', async () => {
			const { items } = await importRows([rows[1]], { matchOn: 'email' }, 'continueRegularOutput');
			expect(items.map((item) => item.json.error)).toEqual([noEmailStopped]);
		});

		it('Output the Row Without Creating It never marks the row as an existing customer', async () => {
			for (const run of [1, 2]) {
				sandbox.clearLog();
				const { items, error } = await importRows(rows, { matchOn: 'email', noMatchValue: 'skip' });
				expect(error).toBeUndefined();
				expect(items[0].json[MARK]).toEqual(mark(run === 1 ? 'created' : 'alreadyExists'));
				expect(items[1].json).toEqual({
					id: null,
					businessId: business(),
					firstName: 'No',
					lastName: 'Mail',
					[MARK]: mark('notCreatedNoMatchValue'),
				});
				expect(items[2].json).toEqual({
					id: null,
					businessId: business(),
					firstName: 'Blank',
					lastName: 'Mail',
					phone: '+1 555 0100',
					[MARK]: mark('notCreatedNoMatchValue'),
				});
				// The README's branch on skipped sends these rows with the created ones, not the existing.
				expect(items.map((item) => (item.json[MARK] as IDataObject).skipped)).toEqual([
					run === 2,
					false,
					false,
				]);
				expect(requestsTo(sandbox, ADD)).toHaveLength(run === 1 ? 1 : 0);
			}
			expect(sandbox.customers.filter((c) => c.lastName === 'Mail')).toHaveLength(1);
		});

		it('says in words what happened to each row', () => {
			expect(skipResult('alreadyExists', 'email')).toBe(
				'Not created: a customer with this email is already in the CRM',
			);
			expect(skipResult('notCreatedNoMatchValue', 'phone')).toBe(
				'Not created: the row has no phone number to look the customer up by',
			);
			expect(skipResult('created', 'name')).toBe(
				'Created: no customer with this first and last name was in the CRM',
			);
			expect(skipResult('createdNoMatchValue', 'email')).toBe(
				'Created without a check: the row has no email to look the customer up by',
			);
		});

		it('Stop With an Error fails such a row and sends nothing for it', async () => {
			const { items, errorItems } = await importRows(
				rows,
				{ matchOn: 'phone', noMatchValue: 'error' },
				'continueErrorOutput',
			);
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 2 }]);
			expect(errorItems.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			expect(errorItems[0].json.error).toBe(
				`Row 1 (Has Mail): ${noEmail.replace('Email is', 'Phone is').replace('an email', 'a phone number')}`,
			);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('Create the Customer Anyway creates it and says so on the item', async () => {
			const { items } = await importRows(rows, { matchOn: 'email', noMatchValue: 'create' });
			expect(items[1].json).toMatchObject({ firstName: 'No', [MARK]: mark('createdNoMatchValue') });
			expect(typeof items[1].json.id).toBe('string');
			expect(requestsTo(sandbox, ADD)).toHaveLength(3);
		});
	});

	describe('a customer of another business is not a match by default', () => {
		let other: SandboxCustomer;
		beforeEach(() => {
			other = sandbox.customers.find((c) => c.businessId === sandbox.businesses[1].id && c.email)!;
		});
		const row = () => ({ firstName: 'Same', lastName: 'Mail', email: String(other.email) });

		it('the row is created in the chosen business', async () => {
			const { items, error } = await importRows([row()]);
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ businessId: business(), [MARK]: mark('created') });
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('with Match Within › All Businesses it is a match', async () => {
			const { items } = await importRows([row()], { matchOn: 'email', matchWithin: 'all' });
			expect(items[0].json).toEqual({ ...other, [MARK]: mark('alreadyExists') });
			expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		});

		it('a matching customer whose record has no business fails the row: neither skipped nor created', async () => {
			delete (other as Partial<SandboxCustomer>).businessId;
			const { error } = await importRows([row()]);
			expect(error?.message).toBe(
				`Customer ${other.id} has this email but the list does not say which business it is in`,
			);
			expect(error?.description).toBe(
				`The node neither skips this row (the customer may belong to another business) nor creates it (it may be a customer of ${business()} already). ${UNPLACED_FIX}`,
			);
			expect(requestsTo(sandbox, ADD)).toHaveLength(0);
			const all = await importRows([row()], { matchOn: 'email', matchWithin: 'all' });
			expect(all.items[0].json[MARK]).toEqual(mark('alreadyExists'));
		});

		it('rows of one run for two businesses each create their own customer', async () => {
			const { items } = await importRows(
				[
					{
						firstName: 'Twin',
						lastName: 'A',
						email: 'twin@example.com',
						business: sandbox.businesses[0].id,
					},
					{
						firstName: 'Twin',
						lastName: 'B',
						email: 'twin@example.com',
						business: sandbox.businesses[1].id,
					},
				],
				{ matchOn: 'email' },
				undefined,
				{ businessId: byId('={{ $json.business }}' as string) },
			);
			expect(items.map((item) => (item.json[MARK] as IDataObject).outcome)).toEqual([
				'created',
				'created',
			]);
			expect(countByEmail('twin@example.com')).toBe(2);
		});
	});

	describe('created and skipped items have the same keys and a top-level id', () => {
		it('both are the flat record with _skipExisting beside it', async () => {
			const known = ofFirstBusiness()[3];
			const { items } = await importRows([
				{
					firstName: 'Brand',
					lastName: 'New',
					email: 'brand.new@example.com',
					phone: '+1 555 0111',
				},
				{ firstName: 'X', lastName: 'Y', email: String(known.email) },
			]);
			const [created, skipped] = items.map((item) => item.json);
			expect(Object.keys(created).sort()).toEqual(Object.keys(skipped).sort());
			expect(created.id).toMatch(/^cust_/);
			expect(skipped.id).toBe(known.id);
			expect(Object.keys(created[MARK] as IDataObject)).toEqual([
				'skipped',
				'created',
				'outcome',
				'result',
				'matchOn',
			]);
			expect(Object.keys(skipped[MARK] as IDataObject)).toEqual([
				'skipped',
				'created',
				'outcome',
				'result',
				'matchOn',
			]);
		});

		it('a record that has its own _skipExisting field is an error, never overwritten', async () => {
			const known = ofFirstBusiness()[4];
			(known as IDataObject)[MARK] = 'theirs';
			const { error } = await importRows([
				{ firstName: 'X', lastName: 'Y', email: String(known.email) },
			]);
			expect(error?.message).toBe(`Customer ${known.id} has its own field "${MARK}"`);
			// Skipped, not created: the advice must not say it was.
			expect(error?.description).toBe(`${OWN_MARK_FIELD} ${OWN_MARK_FIELD_FIX}`);
		});

		it('a custom field named _skipExisting is refused before anything is sent', async () => {
			const { error } = await importRows(
				[{ firstName: 'X', lastName: 'Y', email: 'x@example.com' }],
				false,
				undefined,
				{
					additionalFields: {
						email: '={{ $json.email }}',
						customFields: { field: [{ name: MARK, value: 'mine' }] },
					},
				},
			);
			expect(error?.message).toBe(`Custom field "${MARK}" cannot be set`);
			expect(error?.description).toBe(SKIP_MARK_FIELD_HELP);
			expect(sandbox.requests).toHaveLength(0);
		});
	});

	it('a known email with a zero-width space, or a known name in NFD, is skipped; a new email goes without it', async () => {
		const [byEmail, byName] = [ofFirstBusiness()[6], ofFirstBusiness()[7]];
		byName.firstName = 'Jos\u00e9';
		byName.lastName = 'N\u00fa\u00f1ez';
		const { items, error } = await importRows([
			{ firstName: 'X', lastName: 'Y', email: `${String(byEmail.email)}\u200b` },
			{ firstName: 'New', lastName: 'One', email: 'new.one@example.com\u200b' },
			{ firstName: 'New', lastName: 'Again', email: '\ufeffNEW.one@example.com' },
		]);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ ...byEmail, [MARK]: mark('alreadyExists') });
		expect(items[1].json).toMatchObject({ email: 'new.one@example.com', [MARK]: mark('created') });
		expect(items[2].json[MARK]).toEqual(mark('alreadyExists'));
		// One Create, its email stored without the zero-width space.
		expect(requestsTo(sandbox, ADD).map((r) => (r.body as Row).email)).toEqual([
			'new.one@example.com',
		]);
		expect(sandbox.customers.filter((c) => c.email === 'new.one@example.com')).toHaveLength(1);

		sandbox.clearLog();
		// José Núñez as macOS exports it: each accent a character of its own.
		const nfd = await importRows([{ firstName: 'Jose\u0301', lastName: 'Nu\u0301n\u0303ez ' }], {
			matchOn: 'name',
		});
		expect(nfd.error).toBeUndefined();
		expect(nfd.items.map((item) => item.json)).toEqual([
			{ ...byName, [MARK]: mark('alreadyExists', 'name') },
		]);
		expect(requestsTo(sandbox, ADD)).toEqual([]);
		expect(sandbox.customers).toHaveLength(251);
	});

	describe('issue 57: on Phone, only a full match skips a row', () => {
		/** A customer of the first business, given `phone`. */
		const withPhone = (index: number, phone: string) => {
			const customer = ofFirstBusiness()[index];
			customer.phone = phone;
			return customer;
		};
		const outcomes = (items: Array<{ json: IDataObject }>) =>
			items.map((item) => (item.json[MARK] as IDataObject).outcome);

		it('a number in Arabic-Indic or Persian digits is skipped only for that number, and another one is created', async () => {
			const dubai = withPhone(0, '+971 50 123 4567');
			withPhone(1, '+98 912 345 6789');
			const rows: Row[] = [
				// +971 50 123 4567 and +971 55 987 6543, in Arabic-Indic digits.
				{ firstName: 'Same', lastName: 'Number', phone: '+٩٧١ ٥٠ ١٢٣ ٤٥٦٧' },
				{ firstName: 'Other', lastName: 'Number', phone: '+٩٧١ ٥٥ ٩٨٧ ٦٥٤٣' },
				// 0912 345 6789 in Persian digits: Tehran's +98 912 345 6789 in national form.
				{ firstName: 'Persian', lastName: 'Digits', phone: '۰۹۱۲ ۳۴۵ ۶۷۸۹' },
				{ firstName: 'Persian', lastName: 'Other', phone: '۰۹۱۲ ۳۴۵ ۶۷۰۰' },
			];
			const { items, error } = await importRows(rows, { matchOn: 'phone' });
			expect(error).toBeUndefined();
			expect(outcomes(items)).toEqual(['alreadyExists', 'created', 'alreadyExists', 'created']);
			expect(items[0].json).toEqual({ ...dubai, [MARK]: mark('alreadyExists', 'phone') });
			expect(requestsTo(sandbox, ADD).map((r) => (r.body as Row).lastName)).toEqual([
				'Number',
				'Other',
			]);
		});

		it('letters count: 1-800-CONTACTS is created beside 1-800-FLOWERS', async () => {
			withPhone(0, '1-800-FLOWERS');
			const rows: Row[] = [
				{ firstName: 'Contact', lastName: 'Lenses', phone: '1-800-CONTACTS' },
				{ firstName: 'Same', lastName: 'Flowers', phone: '+1 800 flowers' },
			];
			const { items } = await importRows(rows, { matchOn: 'phone' });
			expect(outcomes(items)).toEqual(['created', 'alreadyExists']);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		// The sandbox's own numbers are +1 202 555 0000 to 0249, and those of its businesses +1 202 555 1000 on.
		it('a number missing its area code is created, and its output names the customers it matches in part', async () => {
			const washington = withPhone(0, '+1 202 666 0236');
			const denver = withPhone(1, '+1 303 666 0236');
			const { items, error } = await importRows(
				[{ firstName: 'New', lastName: 'Person', phone: '666-0236' }],
				{ matchOn: 'phone' },
			);
			expect(error).toBeUndefined();
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
			const partialMatches = [washington.id, denver.id];
			expect(items[0].json[MARK]).toEqual(mark('createdPartialMatch', 'phone', partialMatches));
			expect(items[0].json).toMatchObject({ lastName: 'Person', phone: '666-0236' });
			expect(items[0].json.id).toMatch(/^cust_/);
			// A second run finds the row's own customer in full: nothing is created twice.
			const again = await importRows(
				[{ firstName: 'New', lastName: 'Person', phone: '666-0236' }],
				{
					matchOn: 'phone',
				},
			);
			expect(outcomes(again.items)).toEqual(['alreadyExists']);
			expect(again.items[0].json.id).toBe(items[0].json.id);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		});

		it('Preview Only predicts the partial match, with the same customers', async () => {
			const washington = withPhone(0, '+1 202 666 0236');
			const { items } = await importRows(
				[{ firstName: 'New', lastName: 'Person', phone: '666-0236' }],
				{ matchOn: 'phone', previewOnly: true },
			);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
			expect(items[0].json[MARK]).toEqual({
				skipped: false,
				created: false,
				outcome: 'createdPartialMatch',
				result: previewResult('createdPartialMatch', 'phone'),
				matchOn: 'phone',
				partialMatches: [washington.id],
				preview: true,
			});
			expect(previewResult('createdPartialMatch', 'phone')).toMatch(/^Would be created: /);
		});

		it('two rows of one run that match in part: both are created, the second naming the first', async () => {
			const rows: Row[] = [
				{ firstName: 'First', lastName: 'Row', phone: '+1 303 444 0199' },
				{ firstName: 'Second', lastName: 'Row', phone: '444 0199' },
				{ firstName: 'First', lastName: 'Again', phone: '(303) 444-0199' },
			];
			const { items, error } = await importRows(rows, { matchOn: 'phone' });
			expect(error).toBeUndefined();
			expect(outcomes(items)).toEqual(['created', 'createdPartialMatch', 'alreadyExists']);
			expect((items[1].json[MARK] as IDataObject).partialMatches).toEqual([items[0].json.id]);
			expect(items[2].json.id).toBe(items[0].json.id);
			expect(requestsTo(sandbox, ADD).map((r) => (r.body as Row).lastName)).toEqual(['Row', 'Row']);
		});

		it('a Create that may have happened does not stop a row whose number matches it only in part', async () => {
			sandbox.setFaults({ serverError: { path: ADD, count: 1, status: 502 } });
			const rows: Row[] = [
				{ firstName: 'Ann', lastName: 'First', phone: '+1 303 777 0236' },
				{ firstName: 'Bob', lastName: 'Other', phone: '777 0236' },
			];
			const { items } = await importRows(rows, { matchOn: 'phone' }, 'continueRegularOutput');
			expect(items[0].json.error).toMatch(/answered 502/);
			// Bob is another person as far as the rule can tell; Ann's maybe-customer is not his.
			expect(items[1].json.error).toBeUndefined();
			expect(items[1].json[MARK]).toMatchObject({ outcome: 'created', created: true });
			expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		});
	});
});

describe('Find and Skip Existing honour Request Options › Timeout', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 1 }, { customers: 3 }, (started) => (sandbox = started));

	const find = { resource: 'customer', operation: 'find', findBy: 'email', email: 'a@example.com' };
	const create = () =>
		createAda(sandbox.businesses[0].id, {
			additionalFields: { email: 'a@example.com' },
			skipExisting: true,
		});

	it.each([
		['Find', () => find],
		['Skip Existing', create],
	])(
		'%s: a list read slower than the timeout fails with the timeout error',
		async (_, parameters) => {
			sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 700 } });
			const { error } = await runNode({
				credentials: credentialsFor(sandbox),
				parameters: { ...parameters(), requestOptions: { timeout: 300 } },
			});
			expect(error?.message).toBe('Read the customer list failed: no answer within 0.3 s');
			expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		},
	);

	it.each([
		['Find', () => find],
		['Skip Existing', create],
	])('%s: Pages Read at Once › 1 reads the list page after page', async (_, parameters) => {
		sandbox.seedCustomers(450);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 20 } });
		const run = (pagesInParallel: number) =>
			runNode({
				credentials: credentialsFor(sandbox),
				parameters: { ...parameters(), options: { pagesInParallel } },
			});
		expect((await run(1)).error).toBeUndefined();
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(5);
		expect(sandbox.maxInFlight).toBe(1);
		sandbox.clearLog();
		expect((await run(4)).error).toBeUndefined();
		expect(sandbox.maxInFlight).toBeGreaterThan(1);
	});
});

describe('Create replies the sandbox does not give', () => {
	let api: CreateApi;
	let reply: IDataObject | IDataObject[];
	let listed: IDataObject[];
	beforeAll(async () => {
		api = await startCreateApi(
			() => ({
				status: 201,
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(reply),
			}),
			() => listed,
		);
	});
	afterAll(async () => await api.close());
	beforeEach(() => {
		api.posts.length = 0;
		listed = [];
	});

	it.each([
		['without an id', {}],
		['with a null id', { id: null }],
	])(
		'a customer created %s is found beside a listed customer like it that has its email',
		async (_, id) => {
			const email = 'ann@example.com';
			listed = [{ ...id, firstName: 'Ann', lastName: 'Listed', email, businessId: 'biz_1' }];
			reply = { ...id, firstName: 'Ann', lastName: 'Created', email };
			const find = (name: string): ChainedNode => ({
				name,
				parameters: { resource: 'customer', operation: 'find', findBy: 'email', email },
			});
			const { items, errors } = await runChain({
				credentials: api.credentials,
				nodes: [
					find('Find'),
					{
						name: 'Create',
						parameters: createAda('biz_1', {
							firstName: 'Ann',
							lastName: 'Created',
							additionalFields: { email },
						}),
					},
					find('Find again'),
				],
			});
			expect(errors).toEqual({ Find: undefined, Create: undefined, 'Find again': undefined });
			// Neither has an id, so neither can be taken for the other.
			expect(items['Find again'].map((item) => item.json.lastName)).toEqual(['Listed', 'Created']);
		},
	);

	/** Skip Existing Creates of the rows, a customer of any business counting as a match. */
	const createRows = (
		rows: Row[],
		onError?: 'continueRegularOutput',
		extra: INodeParameters = {},
	) =>
		runNode({
			credentials: api.credentials,
			parameters: createAda('biz_1', {
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}' },
				skipExisting: true,
				matchOn: 'email',
				matchWithin: 'all',
				...extra,
			}),
			items: rows as never,
			onError,
		});

	it('a JSON list as the reply to the first row stops the second row with the same email', async () => {
		reply = [{ id: 'cust_7f3a9c' }];
		const { items } = await createRows(
			[
				{ firstName: 'Ann', lastName: 'First', email: 'ann@example.com' },
				{ firstName: 'Ann', lastName: 'Again', email: 'ann@example.com' },
			],
			'continueRegularOutput',
		);
		expect(api.posts).toHaveLength(1);
		expect(items[0].json.error).toMatch(/answered 201 with a JSON list/);
		expect(items[1].json.error).toMatch(
			/^Row 2 \(Ann Again\): Create customer not sent: row 1 of this run, with the same email, may have created this customer/,
		);
	});

	const OWN_FIELD_CREATED = `${OWN_MARK_FIELD} ${WAS_CREATED} ${OWN_MARK_FIELD_FIX}`;

	it.each([
		['with an id', { id: 'cust_7f3a9c' }, 'Customer cust_7f3a9c'],
		['without an id', {}, 'The customer'],
		['with a null id', { id: null }, 'The customer'],
	])(
		'a created customer %s whose record has its own _skipExisting field is an error that says it was created',
		async (_, id, who) => {
			reply = { ...id, firstName: 'Ann', _skipExisting: 'theirs' };
			const { error } = await createRows([
				{ firstName: 'Ann', lastName: 'First', email: 'ann@example.com' },
			]);
			expect(api.posts).toHaveLength(1);
			expect(error?.message).toBe(`${who} has its own field "${MARK}"`);
			expect(error?.description).toBe(OWN_FIELD_CREATED);
		},
	);

	it('so is one created by Create the Customer Anyway (a row without an email)', async () => {
		reply = { id: 'cust_1b2c3d', _skipExisting: 'theirs' };
		const { error } = await createRows([{ firstName: 'Ann', lastName: 'First' }], undefined, {
			noMatchValue: 'create',
		});
		expect(api.posts).toHaveLength(1);
		expect(error?.message).toBe(`Customer cust_1b2c3d has its own field "${MARK}"`);
		expect(error?.description).toBe(OWN_FIELD_CREATED);
	});
});
