/**
 * Bad input: every value the node must refuse before it sends anything, with the exact message
 * and on the right item. The credential's own checks are in test/credential/values.test.cts.
 */
import type { INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../sandbox/server.cjs';
import { runNode, type RunResult } from '../helpers/harness.cjs';
import { byId, credentialsFor, useSandbox, createAda } from '../helpers/fixtures.cjs';
import {
	DOT_BUSINESS_HELP,
	EMPTY_BUSINESS,
	EMPTY_BUSINESS_HELP,
	GIVES_A_VALUE,
	LIMIT_HELP,
	RETURN_ALL_HELP,
} from '../../nodes/BusinessCrm/params/parameters';
import {
	MAX_RETRIES_HELP,
	MAX_WAIT_HELP,
	PAGES_HELP,
} from '../../nodes/BusinessCrm/params/options';
import {
	API_ID_HELP,
	NO_NAME_HELP,
	RESERVED_HELP,
	TWICE_HELP,
} from '../../nodes/BusinessCrm/resources/customer/create/body';
import { CREATE_URL as ADD } from '../../nodes/BusinessCrm/resources/customer/create/request';
import { BUSINESS_LIST, CUSTOMER_LIST } from '../../nodes/BusinessCrm/api/lists';

const CUSTOMERS = CUSTOMER_LIST.url;

/** Stands for the id of a business the sandbox has (the tables are built before it starts). */
const KNOWN_BUSINESS = '<known business>';
/** The expression every item-level case feeds its value through. */
const FROM_ITEM = '={{ $json.v }}';

const ownFieldHelp = (field: string) =>
	`Enter it in the node's ${field} field, or give the custom field another name.`;

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

const getMany = (resource: 'customer' | 'business') => (value: unknown) => ({
	resource,
	operation: 'getAll',
	returnAll: false,
	limit: value as number,
});
const customerGetMany = getMany('customer');
const businessGetMany = getMany('business');
const businessGet = (value: unknown): INodeParameters => ({
	resource: 'business',
	operation: 'get',
	businessId: byId(value as string),
});
const create = (overrides: INodeParameters): INodeParameters =>
	createAda(KNOWN_BUSINESS, overrides);
const createWithCustomField = (value: unknown): INodeParameters =>
	create({
		additionalFields: {
			customFields: {
				field: [
					{ name: 'leadSource', value: 'Newsletter' },
					{ name: value as string, value: 'x' },
				],
			},
		},
	});

const limitRefusal = (
	bad: unknown,
	shown: string,
	resource: 'customer' | 'business' = 'customer',
): [string, Refusal] => [
	`${resource === 'customer' ? 'Customer' : 'Business'} Get Many, Limit ${shown}`,
	{
		parameters: getMany(resource),
		bad,
		good: 2,
		path: resource === 'customer' ? CUSTOMERS : BUSINESS_LIST.url,
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
		description: `Enter the customer's ${label.toLowerCase()}. ${GIVES_A_VALUE}`,
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
		description: RETURN_ALL_HELP,
	},
];

/** What each of Options' settings must be, and the advice that comes with it. */
const OPTION_RULES = {
	maxRetries: ['Max Retries must be a whole number from 0 to 100', MAX_RETRIES_HELP],
	maxRetryWait: ['Max Total Wait must be from 0 to 3600 seconds', MAX_WAIT_HELP],
	pagesInParallel: ['Pages Read at Once must be a whole number from 1 to 10', PAGES_HELP],
};

const optionRefusal = (
	option: keyof typeof OPTION_RULES,
	title: string,
	bad: unknown,
	good: unknown,
	shown: string,
): [string, Refusal] => [
	`Options, ${title}`,
	{
		parameters: (value) => ({ ...businessGetMany(2), options: { [option]: value as number } }),
		bad,
		good,
		path: BUSINESS_LIST.url,
		message: `${OPTION_RULES[option][0]}, not ${shown}`,
		description: OPTION_RULES[option][1],
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
	limitRefusal(0, '0', 'business'),
	limitRefusal('abc', '"abc"', 'business'),
	businessIdRefusal('get', '', EMPTY_BUSINESS, EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '   ', EMPTY_BUSINESS, EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '\t\n', EMPTY_BUSINESS, EMPTY_BUSINESS_HELP),
	businessIdRefusal('get', '.', '"." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('get', '..', '".." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('get', ' .. ', '".." is not a valid business ID', DOT_BUSINESS_HELP),
	businessIdRefusal('create', '', EMPTY_BUSINESS, EMPTY_BUSINESS_HELP),
	businessIdRefusal('create', '  ', EMPTY_BUSINESS, EMPTY_BUSINESS_HELP),
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
	customFieldRefusal('leadSource', 'Custom field "leadSource" is given twice', TWICE_HELP),
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
	customFieldRefusal(' LeadSource ', 'Custom field "LeadSource" is given twice', TWICE_HELP),
	optionRefusal('maxRetries', 'Max Retries -1', -1, 0, '-1'),
	optionRefusal('maxRetryWait', 'Max Total Wait 3601', 3601, 3600, '3601'),
	optionRefusal('maxRetries', 'Max Retries 101 (100 is the most)', 101, 100, '101'),
	optionRefusal('maxRetries', 'Max Retries of spaces (text "7" is 7)', '  ', '7', '"  "'),
	optionRefusal('maxRetries', 'Max Retries true', true, 0, 'true'),
	optionRefusal('maxRetryWait', 'Max Total Wait -1 (0 is the least)', -1, 0, '-1'),
	optionRefusal('maxRetryWait', 'Max Total Wait "soon"', 'soon', '30', '"soon"'),
	optionRefusal('maxRetryWait', 'Max Total Wait of spaces', ' ', ' 5 ', '" "'),
	optionRefusal('pagesInParallel', 'Pages Read at Once 0', 0, 1, '0'),
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
		} = {},
	): Promise<RunResult> =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: withKnownBusiness(parameters),
			items: options.items as never,
			onError: options.onError,
			// As a production run sends it: a Create run from the editor also reads the list for its
			// duplicate warning (duplicateHint.test.cts), which is not what these tests count.
			mode: 'trigger',
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
				// Customer › Create names the row, as people count it, before the message.
				const row = _title.startsWith('Customer Create') ? /^Row 2( \([^)]*\))?: / : /^/;
				expect(failed.map((item) => String(item.json.error).replace(row, ''))).toEqual([
					errorJson(refusal.message, refusal.description).error,
				]);
				expect(failed.map((item) => row.test(String(item.json.error)))).toEqual([true]);
				expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
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
				const create = _title.startsWith('Customer Create');
				expect(error?.message.replace(/^Row 2( \([^)]*\))?: /, '')).toBe(refusal.message);
				expect(error?.message.startsWith('Row 2')).toBe(create);
				expect(error?.context.itemIndex).toBe(1);
				// Other operations: item 0 still went out (n8n settles every item before it stops).
				// Create checks every row before its first Create, so nothing went out.
				expect(sandbox.requests.map((request) => request.path.startsWith(refusal.path))).toEqual(
					create ? [] : [true],
				);
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
});
