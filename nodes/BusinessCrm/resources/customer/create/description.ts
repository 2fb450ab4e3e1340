import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';
import { businessIdLocator } from '../../../params/descriptions';
import { optionalFields } from './fields';

/** Custom Fields: the fields of the record the node has no parameter of its own for. */
const customFields: INodeProperties = {
	displayName: 'Custom Fields',
	name: 'customFields',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Custom Field',
	default: {},
	description:
		'Other fields of the customer record. Text is sent trimmed; numbers, booleans, null, lists and objects from an expression are sent as JSON values. Use the field names the API expects.',
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{
					displayName: 'Name',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'e.g. leadSource',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					placeholder: 'e.g. Newsletter',
				},
			],
		},
	],
};

const properties: INodeProperties[] = [
	{
		...businessIdLocator,
		description: 'The business whose CRM the customer is added to',
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Ada',
		description: "The customer's given name",
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Lovelace',
		description: "The customer's family name",
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		// In alphabetical order, as n8n's guidelines list a collection's options.
		options: [customFields, ...optionalFields].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	},
	{
		displayName: 'Skip if the Customer Already Exists',
		name: 'skipExisting',
		type: 'boolean',
		default: false,
		builderHint: {
			propertyHint:
				'Turn on for any import or any workflow that may run twice for the same person; keep Match On at Email when the rows have emails',
		},
		description:
			'Whether to look the customer up first and, when it is already in the CRM, output the existing customer instead of adding it again, so that an import can safely run twice. Each item then carries _skipExisting: skipped is true only when the customer was already there, created says whether this row created it, result says what happened in words. Costs one read of the whole customer list per execution, shared with Find (one request per 99 customers, however many rows).',
	},
	{
		displayName: 'Match On',
		name: 'matchOn',
		type: 'options',
		default: 'email',
		description: 'Which field tells that the customer is already in the CRM',
		displayOptions: { show: { skipExisting: [true] } },
		options: [
			{
				name: 'Email',
				value: 'email',
				description:
					'Compared without spaces or invisible characters around it, and regardless of capitals',
			},
			{
				name: 'Phone',
				value: 'phone',
				description:
					'By its digits (in any script) and letters, with or without the country code. Only a full match skips the row: one that matches only in part (no area code) is created, with outcome createdPartialMatch.',
			},
			{
				name: 'First and Last Name',
				value: 'name',
				description:
					'Both names, compared without spaces or invisible characters around them, doubled spaces inside as one, and regardless of capitals',
			},
		],
	},
	{
		displayName: 'Match Within',
		name: 'matchWithin',
		type: 'options',
		default: 'business',
		description:
			'Which customers count as the same. With This Business, a matching customer that the list shows without a business stops the row with an error, since the node cannot tell where it belongs.',
		displayOptions: { show: { skipExisting: [true] } },
		options: [
			{
				name: 'This Business',
				value: 'business',
				description: 'Only a customer of the business above is a match',
			},
			{
				name: 'All Businesses',
				value: 'all',
				description: 'A customer of any business in the organization is a match',
			},
		],
	},
	{
		displayName: 'Rows Without a Match Value',
		name: 'noMatchValue',
		type: 'options',
		default: 'error',
		description: 'What to do with a row that has no email (or phone) to look the customer up by',
		displayOptions: { show: { skipExisting: [true], matchOn: ['email', 'phone'] } },
		options: [
			{
				name: 'Stop With an Error',
				value: 'error',
				description:
					'Fail the row: it stops the node, or goes to the error output when Settings › On Error is Continue (using error output), so every row not created shows there',
			},
			{
				name: 'Output the Row Without Creating It',
				value: 'skip',
				description:
					'Create nothing and output the row with an empty ID, _skipExisting.created false and skipped false (it is not a customer who is already there)',
			},
			{
				name: 'Create the Customer Anyway',
				value: 'create',
				description: 'A re-run adds the customer again',
			},
		],
	},
	{
		displayName: 'Preview Only (Write Nothing)',
		name: 'previewOnly',
		type: 'boolean',
		default: false,
		description:
			'Whether to create nothing and output what the import would do with each row, to check it before the real run: _skipExisting.outcome is created, alreadyExists, notCreatedNoMatchValue, createdNoMatchValue, createdPartialMatch or refused (with the error the real run would stop with), and preview is true. Reads the customer list once and sends no Create. With Skip if the Customer Already Exists off, each row is shown as it would be sent, and nothing is read.',
	},
];

export const customerCreateDescription = updateDisplayOptions(
	{ show: { resource: ['customer'], operation: ['create'] } },
	properties,
);
