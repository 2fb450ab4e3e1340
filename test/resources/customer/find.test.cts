import { type Sandbox } from '../../sandbox/server.cjs';
import { loadNodeType, NODE_TYPE, runNode, savedNode, toolOf } from '../../helpers/harness.cjs';
import { createAda, credentialsFor, requestsTo, useSandbox } from '../../helpers/fixtures.cjs';
import { startApi, json } from '../../helpers/scripted-api.cjs';
import {
	NO_SEARCH_VALUE,
	PICK_FIND_BY,
	PICK_WHEN_NOTHING_MATCHES,
} from '../../../nodes/BusinessCrm/resources/customer/find';
import { GIVES_A_VALUE } from '../../../nodes/BusinessCrm/params/parameters';
// n8n-core's own converter from a node to an AI Agent tool; not re-exported from its index.

const CUSTOMERS = '/api/public/v1/customers';
const nodeType = loadNodeType();
/** The advice for a search value that is empty. */
const enterHelp = (what: string) => `Enter the ${what} to find. ${GIVES_A_VALUE}`;

type Items = Array<Record<string, unknown>>;

/** Customer › Find in `sandbox` with `parameters`, on `items` (one empty item by default). */
const findIn = (
	sandbox: Sandbox,
	parameters: Record<string, unknown>,
	items?: Items,
	onError?: 'continueRegularOutput',
) =>
	runNode({
		credentials: credentialsFor(sandbox),
		parameters: { resource: 'customer', operation: 'find', ...parameters },
		items: items as never,
		onError,
	});

describe('Customer › Find', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 250 }, (started) => (sandbox = started));

	const find = (
		parameters: Record<string, unknown>,
		items?: Items,
		onError?: 'continueRegularOutput',
	) => findIn(sandbox, parameters, items, onError);

	it('a customer deleted before a later page is read: the list is read again, and a customer past that page is found', async () => {
		const wanted = sandbox.customers[249];
		let deleted = false;
		sandbox.onRequest = (entry) => {
			// Page after page: the first page has been answered when the second is asked for.
			if (!deleted && entry.path === CUSTOMERS && entry.query.offset === '99') {
				sandbox.customers.splice(5, 1);
				deleted = true;
			}
		};
		const { items, error } = await find({
			findBy: 'email',
			email: wanted.email,
			options: { pagesInParallel: 1 },
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([wanted]);
		// The second page began one customer late: the first read, though read to its end, is not
		// trusted, and a second one is made.
		expect(requestsTo(sandbox, CUSTOMERS).map((request) => request.query.offset)).toEqual([
			'0',
			'99',
			'198',
			'0',
			'99',
			'198',
		]);
	});

	it('reads the list once per run for all items, and pairs each match with the item that asked', async () => {
		const wanted = [sandbox.customers[3], sandbox.customers[120], sandbox.customers[249]];
		const { items, error } = await find(
			{ findBy: 'email', email: '={{ $json.email }}' },
			wanted.map((customer) => ({ email: customer.email })),
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(wanted);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// 250 customers: 3 pages overlapping by one (offsets step by 99), read once although three
		// items asked; the last two at once.
		expect(
			requestsTo(sandbox, CUSTOMERS)
				.map((request) => request.query)
				.sort((a, b) => Number(a.offset) - Number(b.offset)),
		).toEqual([
			{ limit: '100', offset: '0' },
			{ limit: '100', offset: '99' },
			{ limit: '100', offset: '198' },
		]);
		expect(sandbox.requests).toHaveLength(3);
	});

	it('normalises keys: email trimmed and case-blind, phone by digits, names trimmed and case-blind', async () => {
		const target = sandbox.customers[7];
		target.email = 'Grace.Hopper@Example.com';
		target.phone = '15550100199';
		target.firstName = 'Grace';
		target.lastName = 'Hopper';
		const byEmail = await find({ findBy: 'email', email: '  grace.hopper@EXAMPLE.COM ' });
		const byPhone = await find({ findBy: 'phone', phone: '+1 (555) 010-0199' });
		const byName = await find({ findBy: 'name', firstName: ' grace', lastName: 'HOPPER  ' });
		for (const result of [byEmail, byPhone, byName]) {
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.id)).toEqual([target.id]);
		}
		// A name is both names: the same first name with another last name is no match.
		const other = await find({ findBy: 'name', firstName: 'Grace', lastName: 'Hoppers' });
		expect(other.items).toEqual([]);
	});

	it('phone numbers with and without a country code match', async () => {
		// The sandbox stores numbers as "+1 202 555 0236"; a user types them as they know them.
		const target = sandbox.customers[36];
		const digits = String(target.phone).replace(/\D/g, '');
		const local = `(${digits.slice(1, 4)}) ${digits.slice(4, 7)}-${digits.slice(7)}`;
		const { items, error } = await find({ findBy: 'phone', phone: local });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([target.id]);
	});

	it('issue 57: a number missing its area code still finds every number that ends with it, in full and in part', async () => {
		const [washington, denver, other] = [
			sandbox.customers[3],
			sandbox.customers[130],
			sandbox.customers[7],
		];
		washington.phone = '+1 202 666 0236';
		denver.phone = '(303) 666-0236';
		other.phone = '+1 202 666 0237';
		const partial = await find({ findBy: 'phone', phone: '666-0236' });
		expect(partial.items.map((item) => item.json.id)).toEqual([washington.id, denver.id]);
		const full = await find({ findBy: 'phone', phone: '00 1 303 666 0236' });
		expect(full.items.map((item) => item.json.id)).toEqual([denver.id]);
	});

	it('issue 57: Arabic-Indic digits and letters find that number, not every number written alike', async () => {
		const [dubai, sharjah, flowers] = [
			sandbox.customers[11],
			sandbox.customers[12],
			sandbox.customers[13],
		];
		dubai.phone = '+971 50 123 4567';
		sharjah.phone = '+٩٧١ ٥٥ ٩٨٧ ٦٥٤٣';
		flowers.phone = '1-800-FLOWERS';
		const byArabic = await find({ findBy: 'phone', phone: '+٩٧١ ٥٠ ١٢٣ ٤٥٦٧' });
		expect(byArabic.items.map((item) => item.json.id)).toEqual([dubai.id]);
		const byPersian = await find({ findBy: 'phone', phone: '۰۵۵ ۹۸۷ ۶۵۴۳' });
		expect(byPersian.items.map((item) => item.json.id)).toEqual([sharjah.id]);
		const byLetters = await find({ findBy: 'phone', phone: '1 800 Contacts' });
		expect(byLetters.items).toEqual([]);
		const byFlowers = await find({ findBy: 'phone', phone: '+1 (800) flowers' });
		expect(byFlowers.items.map((item) => item.json.id)).toEqual([flowers.id]);
	});

	it('gives every matching customer, in list order', async () => {
		const [first, second] = [sandbox.customers[10], sandbox.customers[200]];
		second.email = ` ${String(first.email).toUpperCase()} `;
		const { items } = await find({ findBy: 'email', email: String(first.email) });
		expect(items.map((item) => item.json.id)).toEqual([first.id, second.id]);
	});

	it('gives no item when nothing matches, and still reads the list only once', async () => {
		const { items, error } = await find({ findBy: 'email', email: '={{ $json.email }}' }, [
			{ email: 'nobody@example.com' },
			{ email: 'noone@example.com' },
		]);
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('Find with no match outputs one not-found item per input item that found no one, when asked, with what it searched for', async () => {
		const known = sandbox.customers[42];
		const { items, error } = await find(
			{ findBy: 'email', email: '={{ $json.email }}', whenNothingMatches: 'notFoundItem' },
			[
				{ email: 'nobody@example.com' },
				{ email: known.email },
				{ email: ' NoOne@example.com\u200b' },
			],
		);
		expect(error).toBeUndefined();
		// The value as given, cleaned at its ends as it would be sent, capitals kept.
		expect(items).toEqual([
			{
				json: { found: false, findBy: 'email', email: 'nobody@example.com' },
				pairedItem: { item: 0 },
			},
			{ json: known, pairedItem: { item: 1 } },
			{
				json: { found: false, findBy: 'email', email: 'NoOne@example.com' },
				pairedItem: { item: 2 },
			},
		]);
		// Still one read of the list for all items.
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('Find with no match outputs nothing when asked to, as by default', async () => {
		const { items, error } = await find({
			findBy: 'email',
			email: 'nobody@example.com',
			whenNothingMatches: 'nothing',
		});
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});

	it('refuses a When Nothing Matches from an expression that is not one of its choices, on its item', async () => {
		const { items, error } = await find(
			{ findBy: 'email', email: 'a@example.com', whenNothingMatches: '={{ $json.otherwise }}' },
			[{ otherwise: 'empty' }],
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: {
					error: `When Nothing Matches must be nothing or notFoundItem, not "empty". ${PICK_WHEN_NOTHING_MATCHES}`,
					errorType: 'invalidInput',
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('refuses an empty search value on the item it came from, without reading the list', async () => {
		const { items, error } = await find(
			{ findBy: 'phone', phone: '={{ $json.phone }}' },
			[{ phone: 'n/a' }, { phone: sandbox.customers[0].phone }],
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items[0].json.error).toBe(`${NO_SEARCH_VALUE.phone}. ${enterHelp('phone')}`);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[1].json.id).toBe(sandbox.customers[0].id);
		expect(items[1].pairedItem).toEqual({ item: 1 });
	});

	it('refuses an empty email, or a name without its last name, saying what is missing', async () => {
		const byEmail = await find(
			{ findBy: 'email', email: '={{ $json.email }}' },
			[{ email: '  ' }],
			'continueRegularOutput',
		);
		const byName = await find(
			{ findBy: 'name', firstName: 'Grace', lastName: '={{ $json.last }}' },
			[{ last: ' ' }],
			'continueRegularOutput',
		);
		expect(byEmail.items).toEqual([
			{
				json: {
					error: `${NO_SEARCH_VALUE.email}. ${enterHelp('email')}`,
					errorType: 'invalidInput',
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(byName.items).toEqual([
			{
				json: {
					error: `${NO_SEARCH_VALUE.name}. ${enterHelp('first and last name')}`,
					errorType: 'invalidInput',
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('stops with a clear error when the list cannot be read', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 500 } });
		try {
			const { error } = await find(
				{ findBy: 'email', email: 'a@example.com', options: { maxRetries: 0 } },
				[{}, {}],
			);
			expect(error?.message).toMatch(/^Read the customer list failed/);
			expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(1);
		} finally {
			sandbox.resetFaults();
		}
	});

	it('refuses a Find By from an expression that is not email, phone or name, on its item', async () => {
		const { items, error } = await find(
			// With Find By an expression n8n shows (and requires) every search field.
			{
				findBy: '={{ $json.by }}',
				email: 'a@example.com',
				phone: '1',
				firstName: 'A',
				lastName: 'B',
				customerId: 'cust_1',
			},
			[{ by: 'email' }, { by: 'fax' }],
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		expect(items[items.length - 1]).toEqual({
			json: {
				error: `Find By must be email, phone, name or id, not "fax". ${PICK_FIND_BY}`,
				errorType: 'invalidInput',
			},
			pairedItem: { item: 1 },
		});
	});

	it('finds a customer by an email with a byte order mark or a zero-width space, and by a name in NFD', async () => {
		const target = sandbox.customers[12];
		target.firstName = 'Jos\u00e9 Mar\u00eda';
		target.lastName = 'N\u00fa\u00f1ez';
		const typed = [
			{ findBy: 'email', email: `${String(target.email)}\ufeff` },
			{ findBy: 'email', email: `\u200b${String(target.email).toUpperCase()}\u2060` },
			// As macOS exports it, each accent a character of its own; two spaces inside.
			{ findBy: 'name', firstName: 'jose\u0301  MARI\u0301A\u00a0', lastName: 'Nu\u0301n\u0303ez' },
		];
		for (const parameters of typed) {
			const { items, error } = await find(parameters);
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual([target]);
		}
		// Inside an address a zero-width space is part of it: another address, found by no one.
		const [local, domain] = String(target.email).split('@');
		const inside = await find({ findBy: 'email', email: `${local}\u200b@${domain}` });
		expect(inside.items).toEqual([]);
	});
});

describe('Customer › Find by ID', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 250 }, (started) => (sandbox = started));

	const find = (
		parameters: Record<string, unknown>,
		items?: Items,
		onError?: 'continueRegularOutput',
	) => findIn(sandbox, { findBy: 'id', ...parameters }, items, onError);
	/** The ID of each input item, from an expression, as a Create or the trigger hands it on. */
	const eachId = (ids: unknown[], extra: Record<string, unknown> = {}) =>
		find(
			{ customerId: '={{ $json.id }}', ...extra },
			ids.map((id) => ({ id })),
		);
	const output = (json: unknown, item: number) => ({ json, pairedItem: { item } });

	it('finds the customer with spaces or invisible characters pasted around its ID, in one read', async () => {
		const target = sandbox.customers[130];
		const id = String(target.id);
		const typed = [id, ` ${id} `, `\u200b${id}\ufeff`, `\u00a0${id}\n`, `\t${id}\u2060\u00ad`];
		const { items, error } = await eachId(typed);
		expect(error).toBeUndefined();
		expect(items).toEqual(typed.map((_, item) => output(target, item)));
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('compares IDs with their capitals: two IDs that differ only in case are two customers', async () => {
		const [lower, upper] = [sandbox.customers[20], sandbox.customers[220]];
		lower.id = 'cust_ab12cd34ef56ab78';
		upper.id = 'cust_AB12CD34EF56AB78';
		const { items } = await eachId([upper.id, lower.id, 'CUST_ab12cd34ef56ab78']);
		expect(items).toEqual([output(upper, 0), output(lower, 1)]);
	});

	it('takes the whole ID: part of it, its token without cust_, a space inside or a character more finds no one', async () => {
		const id = String(sandbox.customers[5].id);
		const { items, error } = await eachId([
			id.slice(0, -1),
			id.slice('cust_'.length),
			`${id.slice(0, 8)} ${id.slice(8)}`,
			`${id}0`,
		]);
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});

	it('an ID nobody has gives no item with Output Nothing, as by default, and {found: false} with Output a Not-Found Item', async () => {
		const known = sandbox.customers[77];
		const ids = ['cust_0000000000000000', known.id];
		const byDefault = await eachId(ids);
		const nothing = await eachId(ids, { whenNothingMatches: 'nothing' });
		const notFound = await eachId(ids, { whenNothingMatches: 'notFoundItem' });
		expect(byDefault.items).toEqual([output(known, 1)]);
		expect(nothing.items).toEqual([output(known, 1)]);
		expect(notFound.items).toEqual([
			output({ found: false, findBy: 'id', customerId: 'cust_0000000000000000' }, 0),
			output(known, 1),
		]);
	});

	it('refuses an empty ID on its item, saying what is missing, and finds the other items', async () => {
		const known = sandbox.customers[9];
		const { items, error } = await find(
			{ customerId: '={{ $json.id }}' },
			[{ id: '  ' }, { id: '\u200b\ufeff' }, { id: known.id }, {}],
			'continueRegularOutput',
		);
		expect(error).toBeUndefined();
		const refused = `${NO_SEARCH_VALUE.id}. ${enterHelp('customer ID')}`;
		expect(items.map((item) => item.json.error ?? item.json)).toEqual([
			refused,
			refused,
			known,
			refused,
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		// With On Error left on Stop Workflow, nothing is read.
		sandbox.clearLog();
		const stopped = await find({ customerId: ' ' });
		expect(stopped.error?.message).toBe(NO_SEARCH_VALUE.id);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('refuses a list of IDs from an expression, naming Customer ID, and reads nothing', async () => {
		sandbox.clearLog();
		const { error } = await find({ customerId: '={{ ["cust_1", "cust_2"] }}' });
		expect(error?.message).toBe('Customer ID is a list of 2 values, not one value');
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('items finding by ID and by email share one read of the list, each customer paired with its item', async () => {
		const [first, middle, last] = [
			sandbox.customers[0],
			sandbox.customers[150],
			sandbox.customers[249],
		];
		const { items, error } = await find(
			{
				findBy: '={{ $json.by }}',
				customerId: '={{ $json.id }}',
				email: '={{ $json.email }}',
				phone: '1',
				firstName: 'A',
				lastName: 'B',
			},
			[
				{ by: 'id', id: last.id },
				{ by: 'email', email: middle.email },
				{ by: 'id', id: first.id },
				{ by: 'id', id: last.id },
			],
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([output(last, 0), output(middle, 1), output(first, 2), output(last, 3)]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(3);
	});

	it('as an AI Agent tool, the model gives the ID through $fromAI and reads the customer back', async () => {
		const target = sandbox.customers[200];
		const parameters = {
			resource: 'customer',
			operation: 'find',
			findBy: 'id',
			customerId:
				"={{ $fromAI('customerId', 'ID of the customer, like cust_5e0c7a9d2b4f1386', 'string') }}",
			whenNothingMatches: 'notFoundItem',
		};
		const tool = toolOf(
			savedNode('Find a customer by ID', NODE_TYPE, parameters, '1'),
			nodeType,
			credentialsFor(sandbox),
		);
		const shape = (tool.schema as unknown as { shape: Record<string, { description?: string }> })
			.shape;
		expect(Object.keys(shape)).toEqual(['customerId']);
		expect(shape.customerId.description).toBe('ID of the customer, like cust_5e0c7a9d2b4f1386');
		const found = (await tool.invoke({ customerId: ` ${target.id} ` })) as string;
		expect(JSON.parse(found)).toEqual([target]);
		const missing = (await tool.invoke({ customerId: 'cust_0000000000000000' })) as string;
		expect(JSON.parse(missing)).toEqual([
			{ found: false, findBy: 'id', customerId: 'cust_0000000000000000' },
		]);
	});

	it("adds no choice to Create's Match On: Skip Existing on id is refused, nothing sent", async () => {
		const { items } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: createAda(sandbox.businesses[0].id, { skipExisting: true, matchOn: 'id' }),
			onError: 'continueRegularOutput',
		});
		expect(String(items[0].json.error)).toMatch(/^Match On must be email, phone or name, not "id"/);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Find by ID in a list whose reply shape changes from one read to the next', () => {
	it('finds the customer in every list shape the node understands, a number ID by its digits', async () => {
		const ann = { id: 'cust_a1', firstName: 'Ann' };
		const bob = { id: 'cust_B2', firstName: 'Bob' };
		const cy = { id: 42, firstName: 'Cy' };
		const list = [ann, bob, cy];
		const pagination = { total: 3, limit: 100, offset: 0, hasMore: false };
		const shapes: Array<[string, unknown]> = [
			['a top-level array', list],
			['content as an array', { message: 'ok', content: list }],
			['content.customers', { message: 'ok', content: { customers: list, pagination } }],
			['data', { message: 'ok', data: list }],
		];
		let reads = 0;
		const api = await startApi((_request, _url, response) =>
			json(response, 200, shapes[reads++ % shapes.length][1]),
		);
		try {
			for (const [shape] of shapes) {
				const { items, error } = await runNode({
					parameters: {
						resource: 'customer',
						operation: 'find',
						findBy: 'id',
						customerId: '={{ $json.id }}',
					},
					credentials: api.credentials,
					items: [{ id: ' cust_B2 ' }, { id: '42' }, { id: 'cust_b2' }, { id: 'cust_a1' }],
				});
				expect({ shape, error }).toEqual({ shape, error: undefined });
				expect({ shape, found: items.map((item) => item.json) }).toEqual({
					shape,
					found: [bob, cy, ann],
				});
			}
			// One read per run: each shape answered one request.
			expect(api.urls).toHaveLength(shapes.length);
		} finally {
			await api.close();
		}
	});
});

describe('Find reads the customer list as JSON, each customer once', () => {
	it('a customer that moves onto the next page while the list is read is found once', async () => {
		const ann = { id: 'cust_1', email: 'ann@example.com' };
		const bob = { id: 'cust_2', email: 'bob@example.com' };
		const cara = { id: 'cust_3', email: 'cara@example.com' };
		const dan = { id: 'cust_4', email: 'dan@example.com' };
		const list = [bob, ann, dan];
		const accepts: Array<string | undefined> = [];
		const api = await startApi((request, url, response) => {
			accepts.push(request.headers.accept);
			// Pages of at most 2 customers, from the offset asked for.
			const offset = Number(url.searchParams.get('offset') ?? 0);
			const customers = list.slice(offset, offset + 2);
			json(response, 200, {
				message: 'ok',
				content: {
					customers,
					pagination: {
						total: list.length,
						limit: 2,
						offset,
						hasMore: offset + customers.length < list.length,
					},
				},
			});
			// A customer added at the front of the list after the first page pushes Ann on: the next
			// page begins with Bob, not with Ann, so that read is made again.
			if (accepts.length === 1) list.unshift(cara);
		});
		try {
			const { items, error } = await runNode({
				parameters: {
					resource: 'customer',
					operation: 'find',
					findBy: 'email',
					email: 'ann@example.com',
				},
				credentials: api.credentials,
			});
			expect(error).toBeUndefined();
			// The read that saw the list move (0, 1, 2), then one whose pages join up: 0, then 1 and 2
			// at once (the total is known), where Ann is on both pages.
			const offsets = api.urls.map((url) => Number(url.searchParams.get('offset')));
			expect(offsets.slice(0, 4)).toEqual([0, 1, 2, 0]);
			expect(offsets.slice(4).sort((a, b) => a - b)).toEqual([1, 2]);
			expect(items.map((item) => item.json)).toEqual([ann]);
			expect(accepts).toEqual(Array.from({ length: 6 }, () => 'application/json'));
		} finally {
			await api.close();
		}
	});
});
