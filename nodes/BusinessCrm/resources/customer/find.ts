import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import {
	customerIndex,
	emailKey,
	MATCH_KEY_NAMES,
	nameKey,
	phoneKey,
	type MatchKey,
} from '../../shared/customerIndex';
import { inputError } from '../../shared/errors';
import { runOperation } from '../../shared/operation';

const showOnlyForFind = { resource: ['customer'], operation: ['find'] };

function matchKind(ctx: IExecuteSingleFunctions): MatchKey {
	const raw = ctx.getNodeParameter('findBy', 'email') as unknown;
	if (raw === 'email' || raw === 'phone' || raw === 'name') return raw;
	throw inputError(
		ctx,
		`Find By must be email, phone or name, not ${JSON.stringify(raw) ?? String(raw)}`,
		'Pick Email, Phone or First and Last Name under Find By.',
		ctx.getItemIndex(),
	);
}

/** The normalised key this item looks for; an empty one is refused, since it matches nothing. */
function searchKey(ctx: IExecuteSingleFunctions, kind: MatchKey): string {
	const key =
		kind === 'email'
			? emailKey(ctx.getNodeParameter('email', ''))
			: kind === 'phone'
				? phoneKey(ctx.getNodeParameter('phone', ''))
				: nameKey(ctx.getNodeParameter('firstName', ''), ctx.getNodeParameter('lastName', ''));
	if (key !== '') return key;
	const what = MATCH_KEY_NAMES[kind];
	throw inputError(
		ctx,
		kind === 'phone'
			? 'Phone has no digits to search for'
			: kind === 'name'
				? 'First Name and Last Name are both needed to find by name'
				: 'Email is empty',
		`Enter the ${what.toLowerCase()} to find. When it comes from an expression, check that the expression gives a value for this item.`,
		ctx.getItemIndex(),
	);
}

export const customerFindOperation: INodePropertyOptions = {
	name: 'Find',
	value: 'find',
	action: 'Find customers',
	description:
		'Find customers by email, phone number, or first and last name. Pass the one value to search for; returns every matching customer, or nothing when none matches.',
	routing: {
		request: { method: 'GET', url: '/api/public/v1/customers' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function (request) {
				const kind = matchKind(this);
				const key = searchKey(this, kind);
				const index = await customerIndex(this, request);
				return index.find(kind, key);
			}),
		},
	},
};

export const customerFindDescription: INodeProperties[] = [
	{
		displayName: 'Find By',
		name: 'findBy',
		type: 'options',
		default: 'email',
		description: 'What identifies the customer',
		displayOptions: { show: showOnlyForFind },
		options: [
			{
				name: 'Email',
				value: 'email',
				description: 'Trimmed and compared without regard to case',
			},
			{
				name: 'Phone',
				value: 'phone',
				description: 'Compared by its digits alone: +1 (555) 010-0199 matches 15550100199',
			},
			{
				name: 'First and Last Name',
				value: 'name',
				description: 'Both names, each trimmed and compared without regard to case',
			},
		],
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		required: true,
		description: 'The email address of the customer to find',
		displayOptions: { show: { ...showOnlyForFind, findBy: ['email'] } },
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +44 20 7946 0958',
		description: 'The phone number of the customer to find, in any format',
		displayOptions: { show: { ...showOnlyForFind, findBy: ['phone'] } },
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Ada',
		description: 'The given name of the customer to find',
		displayOptions: { show: { ...showOnlyForFind, findBy: ['name'] } },
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Lovelace',
		description: 'The family name of the customer to find',
		displayOptions: { show: { ...showOnlyForFind, findBy: ['name'] } },
	},
];
