import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { businessIdLocator } from '../../shared/descriptions';
import { inputError } from '../../shared/errors';
import { runOperation } from '../../shared/operation';
import { extractRecord } from '../../shared/output';
import { apiRequest } from '../../shared/transport';
import { businessId, requiredText, retryPolicy } from '../../shared/validation';

const showOnlyForCreate = { resource: ['customer'], operation: ['create'] };

/** Fields the node sets itself; a custom field may not overwrite them. */
const NODE_FIELDS = ['businessId', 'firstName', 'lastName', 'email', 'phone'];

/** A field's text, trimmed; undefined when empty, so it is not sent. */
function optionalText(value: unknown): string | undefined {
	if (value === null || value === undefined) return undefined;
	const text =
		typeof value === 'string'
			? value.trim()
			: typeof value === 'object'
				? JSON.stringify(value)
				: String(value);
	return text === '' ? undefined : text;
}

/** The request body: the spec does not show it, so the field names are the likely ones (README). */
function customerBody(ctx: IExecuteSingleFunctions): IDataObject {
	const body: IDataObject = {
		businessId: businessId(ctx),
		firstName: requiredText(ctx, 'firstName', 'First Name'),
		lastName: requiredText(ctx, 'lastName', 'Last Name'),
	};
	const additional = ctx.getNodeParameter('additionalFields', {}) as IDataObject;
	const email = optionalText(additional.email);
	if (email !== undefined) body.email = email;
	const phone = optionalText(additional.phone);
	if (phone !== undefined) body.phone = phone;

	const custom = (
		additional.customFields as {
			field?: Array<{ name?: unknown; value?: unknown }>;
		}
	)?.field;
	const taken = new Set(NODE_FIELDS.map((name) => name.toLowerCase()));
	for (const [index, field] of (custom ?? []).entries()) {
		const name = optionalText(field.name);
		if (name === undefined) {
			throw inputError(
				ctx,
				`Custom field ${index + 1} has no name`,
				'Give every custom field a name, or remove the empty one.',
				ctx.getItemIndex(),
			);
		}
		if (taken.has(name.toLowerCase())) {
			const own = NODE_FIELDS.find((known) => known.toLowerCase() === name.toLowerCase());
			throw inputError(
				ctx,
				own
					? `Custom field "${name}" would overwrite the ${own} the node sends`
					: `Custom field "${name}" is given twice`,
				own
					? `Set ${own} with its own parameter, or give the custom field another name.`
					: 'Give each custom field a different name.',
				ctx.getItemIndex(),
			);
		}
		taken.add(name.toLowerCase());
		// Like Email and Phone, a field whose value is empty (e.g. a blank cell) is not sent.
		const value = optionalText(field.value);
		if (value !== undefined) body[name] = value;
	}
	return body;
}

export const customerCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a customer',
	description: "Add a customer to a business's CRM",
	routing: {
		request: { method: 'POST', url: '/api/business/crm/customer/add' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function (request) {
				const body = customerBody(this);
				const reply = await apiRequest(this, {
					what: 'Create customer',
					options: { ...request, body },
					policy: retryPolicy(this),
					itemIndex: this.getItemIndex(),
					uncertainOutcome:
						'The customer may or may not have been created: check the customer list before running this item again, or it may be added twice.',
					hints: {
						404: `The API did not find business "${String(body.businessId)}" (or the endpoint). Check the business ID, or pick the business from the list.`,
					},
				});
				return [extractRecord(reply, 'customer')];
			}),
		},
	},
};

export const customerCreateDescription: INodeProperties[] = [
	{
		...businessIdLocator,
		description: 'The business whose CRM the customer is added to',
		displayOptions: { show: showOnlyForCreate },
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Ada',
		description: "The customer's given name",
		displayOptions: { show: showOnlyForCreate },
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Lovelace',
		description: "The customer's family name",
		displayOptions: { show: showOnlyForCreate },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: showOnlyForCreate },
		options: [
			{
				displayName: 'Custom Fields',
				name: 'customFields',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Custom Field',
				default: {},
				description:
					'Other fields of the customer record, sent as they are. Use the field names the API expects.',
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
								placeholder: 'e.g. company',
							},
							{
								displayName: 'Value',
								name: 'value',
								type: 'string',
								default: '',
							},
						],
					},
				],
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description: "The customer's email address",
			},
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				placeholder: 'e.g. +44 20 7946 0958',
				description: "The customer's phone number",
			},
		],
	},
];
