/**
 * Bad input: every value the node must refuse before it sends anything, with the exact message
 * and on the right item; values that must be sent, but only ever to the path they name
 * (percent-encoded business ids); and the Base URL mistakes the node repairs.
 */
import type { INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../sandbox/server.cjs';
import { runNode, type CrmCredentials, type RunResult } from '../helpers/harness.cjs';
import { byId, credentialsFor, useSandbox } from '../helpers/fixtures.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const ADD = '/api/business/crm/customer/add';
const BUSINESS_LIST = '/api/business/list/all';

/** Stands for the id of a business the sandbox has (the tables are built before it starts). */
const KNOWN_BUSINESS = '<known business>';
/** The expression every item-level case feeds its value through. */
const FROM_ITEM = '={{ $json.v }}';

const LIMIT_HELP =
	'Set Limit to how many items to return, or turn on Return All to read every item.';
const EMPTY_BUSINESS_HELP =
	'Pick a business from the list, or enter its ID (By ID). When the ID comes from an expression, check that the expression gives a value for this item.';
const DOT_BUSINESS_HELP = 'Enter the ID of a business, as shown in the business list.';
const nameHelp = (label: string) =>
	`Enter the customer's ${label}. When it comes from an expression, check that the expression gives a value for this item.`;
const NO_NAME_HELP = 'Give every custom field a name, or remove the empty one.';
const ownFieldHelp = (field: string) =>
	`Enter it in the node's ${field} field, or give the custom field another name.`;
const API_ID_HELP =
	'The API assigns each new customer its id and ignores one that is sent. Remove the custom field, or give it another name.';
const TWICE_HELP = 'Give each custom field a different name.';
const RESERVED_HELP =
	'__proto__, constructor and prototype are reserved in JSON objects, and a name may not hold a line break or another control character. Give the custom field another name.';

/**
 * The json of a Continue On Fail error item: the message, then the advice, under `error` alone
 * (n8n keeps only an item's `error` text when it routes or shows error items).
 */
const errorJson = (message: string, description: string) => ({
	error: `${message}. ${description}`,
});

/** A value the node must refuse for one item, before sending anything for that item. */
interface Refusal {
	/** The node's parameters with `value` (a literal, or FROM_ITEM) put where it belongs. */
	parameters: (value: unknown) => INodeParameters;
	bad: unknown;
	/** A value for the same place that works, for the other items. */
	good: unknown;
	/** The path a request for a good item goes to. */
	path: string;
	message: string;
	description: string;
	/**
	 * The display name of a required parameter that n8n itself refuses when typed in empty: it
	 * will not start a workflow whose node has such an issue, so the node never runs.
	 */
	requiredByN8n?: string;
}

const customerGetMany = (value: unknown): INodeParameters => ({
	resource: 'customer',
	operation: 'getAll',
	returnAll: false,
	limit: value as number,
});
const businessGetMany = (value: unknown): INodeParameters => ({
	resource: 'business',
	operation: 'getAll',
	returnAll: false,
	limit: value as number,
});
const businessGet = (value: unknown): INodeParameters => ({
	resource: 'business',
	operation: 'get',
	businessId: byId(value as string),
});
const create = (overrides: INodeParameters): INodeParameters => ({
	resource: 'customer',
	operation: 'create',
	businessId: byId(KNOWN_BUSINESS),
	firstName: 'Ada',
	lastName: 'Lovelace',
	...overrides,
});
const createWithCustomField = (value: unknown): INodeParameters =>
	create({
		additionalFields: {
			customFields: {
				field: [
					{ name: 'company', value: 'Analytical Engines' },
					{ name: value as string, value: 'x' },
				],
			},
		},
	});

const limitRefusal = (bad: unknown, shown: string): [string, Refusal] => [
	`Customer Get Many, Limit ${shown}`,
	{
		parameters: customerGetMany,
		bad,
		good: 2,
		path: CUSTOMERS,
		message: `Limit must be a whole number from 1 to 1,000,000, not ${shown}`,
		description: LIMIT_HELP,
	},
];

const businessIdRefusal = (
	operation: 'get' | 'create',
	bad: string,
	message: string,
	description: string,
): [string, Refusal] => [
	`${operation === 'get' ? 'Business Get' : 'Customer Create'}, business id ${JSON.stringify(bad)}`,
	{
		parameters:
			operation === 'get' ? businessGet : (value) => create({ businessId: byId(value as string) }),
		bad,
		good: KNOWN_BUSINESS,
		path: operation === 'get' ? '/api/business/' : ADD,
		message,
		description,
		requiredByN8n: bad === '' ? 'Business' : undefined,
	},
];

const nameRefusal = (
	parameter: 'firstName' | 'lastName',
	bad: string,
	label: string,
): [string, Refusal] => [
	`Customer Create, ${label} ${JSON.stringify(bad)}`,
	{
		parameters: (value) => create({ [parameter]: value as string }),
		bad,
		good: 'Grace',
		path: ADD,
		message: `${label} is empty or only spaces`,
		description: nameHelp(label.toLowerCase()),
		requiredByN8n: bad === '' ? label : undefined,
	},
];

const customFieldRefusal = (
	bad: string,
	message: string,
	description: string,
): [string, Refusal] => [
	`Customer Create, custom field named ${JSON.stringify(bad)}`,
	{
		parameters: createWithCustomField,
		bad,
		good: 'industry',
		path: ADD,
		message,
		description,
	},
];

const returnAllRefusal = (bad: unknown, shown: string): [string, Refusal] => [
	`Customer Get Many, Return All ${shown}`,
	{
		parameters: (value) => ({
			resource: 'customer',
			operation: 'getAll',
			returnAll: value as boolean,
		}),
		bad,
		good: 'true',
		path: CUSTOMERS,
		message: `Return All must be true or false, not ${shown}`,
		description: 'Turn Return All on or off, or make its expression give true or false.',
	},
];

const REFUSALS: Array<[string, Refusal]> = [
	limitRefusal(0, '0'),
	limitRefusal(-1, '-1'),
	limitRefusal(-250, '-250'),
	limitRefusal(2.5, '2.5'),
	limitRefusal(0.999, '0.999'),
	limitRefusal('abc', '"abc"'),
	limitRefusal('', '""'),
	limitRefusal(1_000_001, '1000001'),
	limitRefusal(1e12, '1000000000000'),
	[
		'Business Get Many, Limit 0',
		{
			parameters: businessGetMany,
			bad: 0,
			good: 2,
			path: BUSINESS_LIST,
			message: 'Limit must be a whole number from 1 to 1,000,000, not 0',
			description: LIMIT_HELP,
		},
	],
	[
		'Business Get Many, Limit "abc"',
		{
			parameters: businessGetMany,
			bad: 'abc',
			good: 2,
			path: BUSINESS_LIST,
			message: 'Limit must be a whole number from 1 to 1,000,000, not "abc"',
			description: LIMIT_HELP,
		},
	],
	businessIdRefusal('get', '', 'Business is empty or only spaces', EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '   ', 'Business is empty or only spaces', EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '\t\n', 'Business is empty or only spaces', EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '.', '"." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('get', '..', '".." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('get', ' .. ', '".." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('create', '', 'Business is empty or only spaces', EMPTY_BUSINESS_HELP),
	businessIdRefusal('create', '  ', 'Business is empty or only spaces', EMPTY_BUSINESS_HELP),
	businessIdRefusal('create', '..', '".." is not a valid business ID', DOT_BUSINESS_HELP),
	nameRefusal('firstName', '', 'First Name'),
	nameRefusal('firstName', '   ', 'First Name'),
	nameRefusal('lastName', '', 'Last Name'),
	nameRefusal('lastName', ' \t ', 'Last Name'),
	customFieldRefusal('', 'Custom field 2 has no name', NO_NAME_HELP),
	customFieldRefusal('   ', 'Custom field 2 has no name', NO_NAME_HELP),
	customFieldRefusal(
		'firstName',
		'Custom field "firstName" would overwrite the First Name the node sends',
		ownFieldHelp('First Name'),
	),
	customFieldRefusal(
		'FIRSTNAME',
		'Custom field "FIRSTNAME" would overwrite the First Name the node sends',
		ownFieldHelp('First Name'),
	),
	customFieldRefusal(
		'lastname',
		'Custom field "lastname" would overwrite the Last Name the node sends',
		ownFieldHelp('Last Name'),
	),
	customFieldRefusal(
		'Email',
		'Custom field "Email" would overwrite the Email the node sends',
		ownFieldHelp('Additional Fields › Email'),
	),
	customFieldRefusal(
		'PHONE',
		'Custom field "PHONE" would overwrite the Phone the node sends',
		ownFieldHelp('Additional Fields › Phone'),
	),
	customFieldRefusal(
		'businessId',
		'Custom field "businessId" would overwrite the Business the node sends',
		ownFieldHelp('Business'),
	),
	customFieldRefusal(
		'BUSINESSID',
		'Custom field "BUSINESSID" would overwrite the Business the node sends',
		ownFieldHelp('Business'),
	),
	customFieldRefusal('id', 'Custom field "id" cannot be set', API_ID_HELP),
	customFieldRefusal('ID', 'Custom field "ID" cannot be set', API_ID_HELP),
	customFieldRefusal('company', 'Custom field "company" is given twice', TWICE_HELP),
	customFieldRefusal('__proto__', 'Custom field name "__proto__" cannot be used', RESERVED_HELP),
	customFieldRefusal(
		'constructor',
		'Custom field name "constructor" cannot be used',
		RESERVED_HELP,
	),
	customFieldRefusal('prototype', 'Custom field name "prototype" cannot be used', RESERVED_HELP),
	customFieldRefusal('tax\nid', 'Custom field name "tax\\nid" cannot be used', RESERVED_HELP),
	returnAllRefusal('yes', '"yes"'),
	returnAllRefusal('TRUE ', '"TRUE "'),
	returnAllRefusal(1, '1'),
	customFieldRefusal(' Company ', 'Custom field "Company" is given twice', TWICE_HELP),
	[
		'Options, Max Retries -1',
		{
			parameters: (value) => ({ ...businessGetMany(2), options: { maxRetries: value as number } }),
			bad: -1,
			good: 0,
			path: BUSINESS_LIST,
			message: 'Max Retries must be a whole number from 0 to 100, not -1',
			description:
				'Set Options › Max Retries to how often a rate-limited request may be sent again.',
		},
	],
	[
		'Options, Max Total Wait 3601',
		{
			parameters: (value) => ({
				...businessGetMany(2),
				options: { maxRetryWait: value as number },
			}),
			bad: 3601,
			good: 3600,
			path: BUSINESS_LIST,
			message: 'Max Total Wait must be from 0 to 3600 seconds, not 3601',
			description:
				'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.',
		},
	],
	[
		'Options, Max Retries 101 (100 is the most)',
		{
			parameters: (value) => ({ ...businessGetMany(2), options: { maxRetries: value as number } }),
			bad: 101,
			good: 100,
			path: BUSINESS_LIST,
			message: 'Max Retries must be a whole number from 0 to 100, not 101',
			description:
				'Set Options › Max Retries to how often a rate-limited request may be sent again.',
		},
	],
	[
		'Options, Max Retries of spaces (text "7" is 7)',
		{
			parameters: (value) => ({ ...businessGetMany(2), options: { maxRetries: value as number } }),
			bad: '  ',
			good: '7',
			path: BUSINESS_LIST,
			message: 'Max Retries must be a whole number from 0 to 100, not "  "',
			description:
				'Set Options › Max Retries to how often a rate-limited request may be sent again.',
		},
	],
	[
		'Options, Max Retries true',
		{
			parameters: (value) => ({ ...businessGetMany(2), options: { maxRetries: value as number } }),
			bad: true,
			good: 0,
			path: BUSINESS_LIST,
			message: 'Max Retries must be a whole number from 0 to 100, not true',
			description:
				'Set Options › Max Retries to how often a rate-limited request may be sent again.',
		},
	],
	[
		'Options, Max Total Wait -1 (0 is the least)',
		{
			parameters: (value) => ({
				...businessGetMany(2),
				options: { maxRetryWait: value as number },
			}),
			bad: -1,
			good: 0,
			path: BUSINESS_LIST,
			message: 'Max Total Wait must be from 0 to 3600 seconds, not -1',
			description:
				'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.',
		},
	],
	[
		'Options, Max Total Wait "soon"',
		{
			parameters: (value) => ({
				...businessGetMany(2),
				options: { maxRetryWait: value as number },
			}),
			bad: 'soon',
			good: '30',
			path: BUSINESS_LIST,
			message: 'Max Total Wait must be from 0 to 3600 seconds, not "soon"',
			description:
				'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.',
		},
	],
	[
		'Options, Max Total Wait of spaces',
		{
			parameters: (value) => ({
				...businessGetMany(2),
				options: { maxRetryWait: value as number },
			}),
			bad: ' ',
			good: ' 5 ',
			path: BUSINESS_LIST,
			message: 'Max Total Wait must be from 0 to 3600 seconds, not " "',
			description:
				'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.',
		},
	],
	[
		'Options, Pages Read at Once 0',
		{
			parameters: (value) => ({
				...businessGetMany(2),
				options: { pagesInParallel: value as number },
			}),
			bad: 0,
			good: 1,
			path: BUSINESS_LIST,
			message: 'Pages Read at Once must be a whole number from 1 to 10, not 0',
			description:
				'Set Options › Pages Read at Once to how many pages of the list may be asked for at the same time (1 reads page after page).',
		},
	],
];

describe('Bad input', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 3 }, (started) => (sandbox = started));

	/** Puts the id of a real business where a table says KNOWN_BUSINESS. */
	const resolve = (value: unknown): unknown =>
		value === KNOWN_BUSINESS ? sandbox.businesses[0].id : value;
	const withKnownBusiness = (parameters: INodeParameters): INodeParameters =>
		JSON.parse(
			JSON.stringify(parameters).split(KNOWN_BUSINESS).join(sandbox.businesses[0].id),
		) as INodeParameters;

	const run = (
		parameters: INodeParameters,
		options: {
			items?: Array<Record<string, unknown>>;
			onError?: 'continueRegularOutput';
			credentials?: Partial<CrmCredentials>;
		} = {},
	): Promise<RunResult> =>
		runNode({
			credentials: { ...credentialsFor(sandbox), ...options.credentials },
			parameters: withKnownBusiness(parameters),
			items: options.items as never,
			onError: options.onError,
		});

	describe('refused for the item that holds it, before anything is sent', () => {
		it.each(REFUSALS)('%s: as a typed value', async (_title, refusal) => {
			if (refusal.requiredByN8n !== undefined) {
				// n8n's own check of required parameters refuses the workflow before the node runs.
				await expect(run(refusal.parameters(resolve(refusal.bad)))).rejects.toThrow(
					`The 'Business CRM' node has issues:\n- Parameter "${refusal.requiredByN8n}" is required.`,
				);
				expect(sandbox.requests).toEqual([]);
				return;
			}
			const { items, error } = await run(refusal.parameters(resolve(refusal.bad)));
			expect(items).toEqual([]);
			expect(error?.message).toBe(refusal.message);
			expect(error?.description).toBe(refusal.description);
			expect(error?.context.itemIndex).toBe(0);
			expect(sandbox.requests).toEqual([]);
		});

		it.each(REFUSALS)(
			'%s: from an expression on item 1 of 3, Continue On Fail',
			async (_title, refusal) => {
				const good = resolve(refusal.good);
				const { items, error } = await run(refusal.parameters(FROM_ITEM), {
					items: [{ v: good }, { v: refusal.bad }, { v: good }],
					onError: 'continueRegularOutput',
				});
				expect(error).toBeUndefined();
				expect(items.map((item) => item.pairedItem)).toEqual(
					expect.arrayContaining([{ item: 0 }, { item: 1 }, { item: 2 }]),
				);
				const failed = items.filter((item) => 'error' in item.json);
				expect(failed).toEqual([
					{ json: errorJson(refusal.message, refusal.description), pairedItem: { item: 1 } },
				]);
				// The two good items went out; nothing for the refused one.
				expect(
					sandbox.requests.map((request) => [
						request.method,
						request.path.startsWith(refusal.path),
						request.status,
					]),
				).toEqual([
					[expect.any(String), true, expect.any(Number)],
					[expect.any(String), true, expect.any(Number)],
				]);
				expect(sandbox.requests.every((request) => request.status < 300)).toBe(true);
			},
		);

		it.each(REFUSALS)(
			'%s: from an expression on item 1 of 2, the error names item 1',
			async (_title, refusal) => {
				const { error } = await run(refusal.parameters(FROM_ITEM), {
					items: [{ v: resolve(refusal.good) }, { v: refusal.bad }],
				});
				expect(error?.message).toBe(refusal.message);
				expect(error?.context.itemIndex).toBe(1);
				// Item 0 still went out (n8n settles every item before it stops); item 1 did not.
				expect(sandbox.requests.map((request) => request.path.startsWith(refusal.path))).toEqual([
					true,
				]);
			},
		);

		it.each<[unknown, number]>([
			[true, 3],
			['true', 3],
			[false, 2],
			['false', 2],
		])('takes Return All %j from an expression', async (value, expected) => {
			const { items, error } = await run(
				{ resource: 'customer', operation: 'getAll', returnAll: FROM_ITEM, limit: 2 },
				{ items: [{ v: value }] },
			);
			expect(error).toBeUndefined();
			expect(items).toHaveLength(expected);
			expect(sandbox.requests.map((request) => request.query.limit)).toEqual([
				expected === 3 ? '100' : '2',
			]);
		});

		it('accepts the largest Limit, 1,000,000, and asks for pages of 100', async () => {
			const { items, error } = await run(customerGetMany(1_000_000));
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(sandbox.customers.map((c) => c.id));
			expect(sandbox.requests.map((request) => [request.path, request.query])).toEqual([
				[CUSTOMERS, { limit: '100', offset: '0' }],
			]);
		});
	});

	describe('business ids are sent percent-encoded, to exactly /api/business/<id>', () => {
		it.each([
			['a/b', '/api/business/a%2Fb'],
			['a?b=1', '/api/business/a%3Fb%3D1'],
			['a#b', '/api/business/a%23b'],
			['biz/../list/all', '/api/business/biz%2F..%2Flist%2Fall'],
			['../../public/v1/customers', '/api/business/..%2F..%2Fpublic%2Fv1%2Fcustomers'],
			['x..y', '/api/business/x..y'],
			['...', '/api/business/...'],
			['biz 1', '/api/business/biz%201'],
			['café-€', '/api/business/caf%C3%A9-%E2%82%AC'],
			['東京', '/api/business/%E6%9D%B1%E4%BA%AC'],
			['100%', '/api/business/100%25'],
			['%2e%2e', '/api/business/%252e%252e'],
			['a&b=c+d', '/api/business/a%26b%3Dc%2Bd'],
		])('%j goes to %s, and the 404 names it', async (id, path) => {
			const { items, error } = await run(businessGet(id));
			expect(items).toEqual([]);
			expect(
				sandbox.requests.map((request) => [request.method, request.path, request.status]),
			).toEqual([['GET', path, 404]]);
			expect(error?.message).toBe(
				`Get business failed: the Business CRM API answered 404 "Not Found: Business ${id} not found"`,
			);
			expect(error?.description).toBe(
				`No business with ID "${id}" was found in this organization. Check the ID, or pick the business from the list.`,
			);
			expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('404');
		});

		it('gets a business whose id holds /, ?, #, .., a space and non-ASCII', async () => {
			const odd = { ...sandbox.businesses[0], id: 'biz/../x?y=1#z ü' };
			sandbox.businesses.push(odd);
			try {
				const { items, error } = await run(businessGet(odd.id));
				expect(error).toBeUndefined();
				expect(items).toEqual([{ json: odd, pairedItem: { item: 0 } }]);
				expect(sandbox.requests.map((request) => request.path)).toEqual([
					'/api/business/biz%2F..%2Fx%3Fy%3D1%23z%20%C3%BC',
				]);
			} finally {
				sandbox.businesses.pop();
			}
		});

		it('trims the id before encoding it', async () => {
			const { error } = await run(businessGet(`  ${sandbox.businesses[1].id}\n`));
			expect(error).toBeUndefined();
			expect(sandbox.requests.map((request) => request.path)).toEqual([
				`/api/business/${sandbox.businesses[1].id}`,
			]);
		});
	});

	describe('the credential is checked before anything is sent', () => {
		const BASE_URL_HELP = 'Open the credential and correct the Base URL.';
		const EXAMPLE = ' Enter the API address only, e.g. https://api.example.com';
		const PASTE_AGAIN = (label: string) =>
			`A hidden or unusual character was pasted with it. Open the credential and paste the ${label} again as a single line, copied from its source.`;
		const cases: Array<[string, (s: Sandbox) => Partial<CrmCredentials>, string, string]> = [
			[
				'a Base URL with another scheme (ftp)',
				(s) => ({ baseUrl: `ftp://127.0.0.1:${s.port}` }),
				'The Base URL in the Business CRM credential "ftp://127.0.0.1:PORT" does not start with http:// or https://.' +
					EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'a Base URL with a query string',
				(s) => ({ baseUrl: `${s.url}/?tenant=1` }),
				'The Base URL in the Business CRM credential "http://127.0.0.1:PORT/?tenant=1" contains a query string or fragment (? or #).' +
					EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'a Base URL with a fragment',
				(s) => ({ baseUrl: `${s.url}#api` }),
				'The Base URL in the Business CRM credential "http://127.0.0.1:PORT#api" contains a query string or fragment (? or #).' +
					EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'an empty Base URL',
				() => ({ baseUrl: '' }),
				'The Base URL in the Business CRM credential is empty.' + EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'a Base URL of spaces only',
				() => ({ baseUrl: '   ' }),
				'The Base URL in the Business CRM credential is empty.' + EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'a Base URL without a host',
				() => ({ baseUrl: 'http://' }),
				'The Base URL in the Business CRM credential "http://" has no host name.' + EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'a Base URL with a space inside',
				(s) => ({ baseUrl: `http://127.0.0.1 :${s.port}` }),
				'The Base URL in the Business CRM credential "http://127.0.0.1 :PORT" contains spaces.' +
					EXAMPLE,
				BASE_URL_HELP,
			],
			[
				'an API key with a line break inside',
				(s) => ({ apiKey: `${s.apiKey.slice(0, 12)}\n${s.apiKey.slice(12)}` }),
				'The API Key in the Business CRM credential contains a line break (U+000A) at position 13',
				PASTE_AGAIN('API Key'),
			],
			[
				'an API key with CR LF inside',
				(s) => ({ apiKey: `${s.apiKey.slice(0, 12)}\r\n${s.apiKey.slice(12)}` }),
				'The API Key in the Business CRM credential contains a line break (U+000D) at position 13',
				PASTE_AGAIN('API Key'),
			],
			[
				'an empty API key',
				() => ({ apiKey: '' }),
				'The API Key in the Business CRM credential is empty',
				'Open the credential and enter the API Key.',
			],
			[
				'an API key of whitespace only',
				() => ({ apiKey: ' \n ' }),
				'The API Key in the Business CRM credential is empty',
				'Open the credential and enter the API Key.',
			],
			[
				'an organization ID with a line break inside',
				(s) => ({
					organizationId: `${s.organizationId.slice(0, 6)}\n${s.organizationId.slice(6)}`,
				}),
				'The Organization ID in the Business CRM credential contains a line break (U+000A) at position 7',
				PASTE_AGAIN('Organization ID'),
			],
			[
				'an empty organization ID',
				() => ({ organizationId: '' }),
				'The Organization ID in the Business CRM credential is empty',
				'Open the credential and enter the Organization ID.',
			],
		];

		it.each(cases)('refuses %s', async (_title, credentials, message, description) => {
			const { items, error } = await run(businessGet(KNOWN_BUSINESS), {
				credentials: credentials(sandbox),
			});
			expect(items).toEqual([]);
			expect(error?.message).toBe(message.replace('PORT', String(sandbox.port)));
			expect(error?.description).toBe(description);
			expect(error?.context.itemIndex).toBe(0);
			expect(sandbox.requests).toEqual([]);
		});

		it('refuses it on every item with Continue On Fail, each error item paired', async () => {
			const { items, error } = await run(businessGet(KNOWN_BUSINESS), {
				credentials: { baseUrl: `ftp://127.0.0.1:${sandbox.port}` },
				items: [{}, {}],
				onError: 'continueRegularOutput',
			});
			expect(error).toBeUndefined();
			const message = `The Base URL in the Business CRM credential "ftp://127.0.0.1:${sandbox.port}" does not start with http:// or https://.${EXAMPLE}`;
			expect(items).toEqual([
				{ json: errorJson(message, BASE_URL_HELP), pairedItem: { item: 0 } },
				{ json: errorJson(message, BASE_URL_HELP), pairedItem: { item: 1 } },
			]);
			expect(sandbox.requests).toEqual([]);
		});

		it.each<[string, (s: Sandbox) => Partial<CrmCredentials>]>([
			['a trailing slash', (s) => ({ baseUrl: `${s.url}/` })],
			['several trailing slashes', (s) => ({ baseUrl: `${s.url}///` })],
			['"http//" without the colon', (s) => ({ baseUrl: `http//127.0.0.1:${s.port}` })],
			['"http:/" with one slash', (s) => ({ baseUrl: `http:/127.0.0.1:${s.port}` })],
			['an upper-case scheme', (s) => ({ baseUrl: `HTTP://127.0.0.1:${s.port}` })],
			['a copied /api/public/v1', (s) => ({ baseUrl: `${s.url}/api/public/v1` })],
			['a copied /api/public/v1/', (s) => ({ baseUrl: `${s.url}/api/public/v1/` })],
			['surrounding spaces and a line break', (s) => ({ baseUrl: `  ${s.url}/ \n` })],
			['an API key with surrounding spaces', (s) => ({ apiKey: ` ${s.apiKey}\n` })],
			[
				'an organization ID with surrounding spaces',
				(s) => ({ organizationId: `\t${s.organizationId} ` }),
			],
		])('repairs %s', async (_title, credentials) => {
			const business = sandbox.businesses[0];
			const { items, error } = await run(businessGet(business.id), {
				credentials: credentials(sandbox),
			});
			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: business, pairedItem: { item: 0 } }]);
			expect(
				sandbox.requests.map((request) => [
					request.method,
					request.path,
					request.headers['x-api-key'],
					request.headers['x-organization-id'],
					request.status,
				]),
			).toEqual([
				['GET', `/api/business/${business.id}`, sandbox.apiKey, sandbox.organizationId, 200],
			]);
		});
	});
});
