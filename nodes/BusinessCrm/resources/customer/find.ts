import { updateDisplayOptions } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import {
	emailKey,
	idKey,
	MATCH_KEY_NAMES,
	nameKey,
	phoneKey,
	type FindKey,
} from '../../state/customerIndex';
import { findCustomers } from '../../state/executionCustomers';
import { inputError } from '../../errors/errors';
import { runOperation } from '../operation';
import { choiceParameter, GIVES_A_VALUE, textParameter } from '../../params/parameters';

const FIND_BY: readonly FindKey[] = ['email', 'phone', 'name', 'id'];
export const PICK_FIND_BY = 'Pick Email, Phone, First and Last Name or Customer ID under Find By.';

function matchKind(ctx: IExecuteSingleFunctions): FindKey {
	return choiceParameter(ctx, 'findBy', 'Find By', 'email', FIND_BY, PICK_FIND_BY);
}

/** Why an item's search value matches nothing, by what it searches for. */
export const NO_SEARCH_VALUE: Record<FindKey, string> = {
	email: 'Email is empty',
	phone: 'Phone has no digits to search for',
	name: 'First Name and Last Name are both needed to find by name',
	id: 'Customer ID is empty',
};

type Read = (name: string, label: string) => string;

/** Each way of finding: the key its parameters give, as the index files customers. */
const SEARCH_KEYS: Record<FindKey, (read: Read) => string> = {
	email: (read) => emailKey(read('email', 'Email')),
	phone: (read) => phoneKey(read('phone', 'Phone')),
	name: (read) => nameKey(read('firstName', 'First Name'), read('lastName', 'Last Name')),
	id: (read) => idKey(read('customerId', 'Customer ID')),
};

/**
 * The normalised key this item looks for, and the values it was given (cleaned, under their
 * parameters' names); an empty key is refused, since it matches nothing.
 */
function searchKey(
	ctx: IExecuteSingleFunctions,
	kind: FindKey,
): { key: string; given: Array<[string, string]> } {
	const given: Array<[string, string]> = [];
	const key = SEARCH_KEYS[kind]((name, label) => {
		const text = textParameter(ctx, name, label);
		given.push([name, text]);
		return text;
	});
	if (key !== '') return { key, given };
	const what = kind === 'id' ? 'customer ID' : MATCH_KEY_NAMES[kind].toLowerCase();
	// The parameter to fill: the empty one of the two names, else the only one.
	const [parameter] = given.find(([, text]) => text === '') ?? given[0];
	throw inputError(
		ctx,
		NO_SEARCH_VALUE[kind],
		`Enter the ${what} to find. ${GIVES_A_VALUE}`,
		ctx.getItemIndex(),
		{ parameter },
	);
}

/** When Nothing Matches; the values are saved in workflows. */
type WhenNothingMatches = 'nothing' | 'notFoundItem';

/**
 * What an input item that finds nobody outputs with When Nothing Matches › Output a Not-Found
 * Item: what it searched for, under the names Create's fields have, so that a Create after an If
 * maps `{{ $json.email }}` (or the names, the phone) without reaching back to an earlier node.
 */
function notFoundItem(kind: FindKey, given: Array<[string, string]>): IDataObject {
	return { found: false, findBy: kind, ...Object.fromEntries(given) };
}

const WHEN_NOTHING_MATCHES: readonly WhenNothingMatches[] = ['nothing', 'notFoundItem'];
export const PICK_WHEN_NOTHING_MATCHES =
	'Pick Output Nothing or Output a Not-Found Item under When Nothing Matches.';

function whenNothingMatches(ctx: IExecuteSingleFunctions): WhenNothingMatches {
	return choiceParameter(
		ctx,
		'whenNothingMatches',
		'When Nothing Matches',
		'nothing',
		WHEN_NOTHING_MATCHES,
		PICK_WHEN_NOTHING_MATCHES,
	);
}

export const customerFindOperation: INodePropertyOptions = {
	name: 'Find',
	value: 'find',
	action: 'Find customers',
	description:
		'Find customers by email or by first and last name (whole, in any capitals), by the digits of a phone number, or by customer ID (exactly)',
	builderHint: {
		propertyHint:
			'Use before Customer › Create to avoid duplicates: set When Nothing Matches to Output a Not-Found Item and send items whose found field is false to Create through an If node. Find By Customer ID reads back a cust_… ID from Create or the trigger.',
	},
	routing: {
		request: { method: 'GET', url: '/api/public/v1/customers' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const kind = matchKind(this);
				const { key, given } = searchKey(this, kind);
				const otherwise = whenNothingMatches(this);
				const found = await findCustomers(this, kind, key);
				return found.length === 0 && otherwise === 'notFoundItem'
					? [notFoundItem(kind, given)]
					: found;
			}),
		},
	},
};

const properties: INodeProperties[] = [
	{
		displayName: 'Find By',
		name: 'findBy',
		type: 'options',
		default: 'email',
		description: "Which of the customer's details to search by",
		options: [
			{
				name: 'Email',
				value: 'email',
				description:
					'The same address in any capitals, spaces or invisible characters around it ignored',
			},
			{
				name: 'Phone',
				value: 'phone',
				description: 'By its digits (in any script) and letters, with or without the country code',
			},
			{
				name: 'First and Last Name',
				value: 'name',
				description:
					'Both names, in any capitals; spaces or invisible characters around them ignored, doubled spaces inside count as one',
			},
			{
				name: 'Customer ID',
				value: 'id',
				description:
					'The ID exactly as the API gives it (cust_…), capitals included; spaces or invisible characters around it ignored',
			},
		],
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. nathan@example.com',
		default: '',
		required: true,
		description:
			"The customer's whole email address. Capitals and spaces around it do not matter; part of an address finds no one.",
		displayOptions: { show: { findBy: ['email'] } },
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +44 20 7946 0958',
		description:
			"The customer's phone number, written any way: digits of any script and letters count, spaces, dots, dashes and brackets do not. A number matches with or without its country code or a leading 0: (202) 555-0236 finds +1 202 555 0236. A number of 7 digits or more also finds longer numbers that end with it (a partial match), so one typed without its area code finds that number in every area.",
		displayOptions: { show: { findBy: ['phone'] } },
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Ada',
		description: "The customer's first name; the last name must match too",
		displayOptions: { show: { findBy: ['name'] } },
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Lovelace',
		description: "The customer's last name; the first name must match too",
		displayOptions: { show: { findBy: ['name'] } },
	},
	{
		displayName: 'Customer ID',
		name: 'customerId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. cust_5e0c7a9d2b4f1386',
		description:
			"The customer's ID as Create, Get Many or the trigger give it. Spaces and invisible characters around it do not matter; capitals do, and part of an ID finds no one.",
		displayOptions: { show: { findBy: ['id'] } },
	},
	{
		displayName: 'When Nothing Matches',
		name: 'whenNothingMatches',
		type: 'options',
		default: 'nothing',
		description:
			'What an input item that finds no customer outputs. Customers found are output as they are, one item each. To create the customers not found, pick Output a Not-Found Item and follow with an If node whose condition is that the ID field exists: items without an ID found no one. (Settings › Always Output Data does not do this: it adds one empty item only when no input item found anyone.)',
		options: [
			{
				name: 'Output Nothing',
				value: 'nothing',
				description:
					'The item gives no output. When no item finds anyone, the node shows "No output data returned" and the nodes after it do not run.',
			},
			{
				name: 'Output a Not-Found Item',
				value: 'notFoundItem',
				description:
					'The item gives one item {"found": false} with what it searched for, paired with the input item',
			},
		],
	},
];

export const customerFindDescription = updateDisplayOptions(
	{ show: { resource: ['customer'], operation: ['find'] } },
	properties,
);
