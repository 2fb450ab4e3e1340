import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { customerIndex, recordKey, type MatchKey } from '../../shared/customerIndex';
import { businessIdLocator } from '../../shared/descriptions';
import { inputError, transportError } from '../../shared/errors';
import { runOperation, type OperationHandler } from '../../shared/operation';
import { extractRecord } from '../../shared/output';
import { apiReply } from '../../shared/transport';
import { businessId, requiredText, retryPolicy } from '../../shared/validation';

const showOnlyForCreate = { resource: ['customer'], operation: ['create'] };

/** Fields the node sets itself, with where the user sets them; a custom field may not overwrite them. */
const NODE_FIELDS: Record<string, { label: string; where: string }> = {
	businessId: { label: 'Business', where: 'Business' },
	firstName: { label: 'First Name', where: 'First Name' },
	lastName: { label: 'Last Name', where: 'Last Name' },
	email: { label: 'Email', where: 'Additional Fields › Email' },
	phone: { label: 'Phone', where: 'Additional Fields › Phone' },
};

/** Fields the API sets itself and ignores when sent (spec: it assigns customer ids). */
const API_FIELDS = new Set(['id']);

/** Names that would change the body object itself instead of adding a field to it. */
const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

function hasControlCharacter(text: string): boolean {
	for (const character of text) {
		const code = character.charCodeAt(0);
		if (code <= 0x1f || code === 0x7f) return true;
	}
	return false;
}

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
	const taken = new Set(Object.keys(NODE_FIELDS).map((name) => name.toLowerCase()));
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
			const own = Object.entries(NODE_FIELDS).find(
				([known]) => known.toLowerCase() === name.toLowerCase(),
			)?.[1];
			throw inputError(
				ctx,
				own
					? `Custom field "${name}" would overwrite the ${own.label} the node sends`
					: `Custom field "${name}" is given twice`,
				own
					? `Enter it in the node's ${own.where} field, or give the custom field another name.`
					: 'Give each custom field a different name.',
				ctx.getItemIndex(),
			);
		}
		if (API_FIELDS.has(name.toLowerCase())) {
			throw inputError(
				ctx,
				`Custom field "${name}" cannot be set`,
				'The API assigns each new customer its id and ignores one that is sent. Remove the custom field, or give it another name.',
				ctx.getItemIndex(),
			);
		}
		if (UNSAFE_NAMES.has(name) || hasControlCharacter(name)) {
			throw inputError(
				ctx,
				`Custom field name ${JSON.stringify(name)} cannot be used`,
				'__proto__, constructor and prototype are reserved in JSON objects, and a name may not hold a line break or another control character. Give the custom field another name.',
				ctx.getItemIndex(),
			);
		}
		taken.add(name.toLowerCase());
		const value = customValue(ctx, name, field.value);
		if (value !== undefined) body[name] = value;
	}
	return body;
}

/**
 * A custom field's value as it goes into the JSON body: text trimmed (empty text, e.g. a blank
 * cell, is not sent, like Email and Phone), any other JSON value as it is.
 */
function customValue(
	ctx: IExecuteSingleFunctions,
	name: string,
	value: unknown,
): IDataObject[string] | undefined {
	if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
	if (typeof value === 'number' && !Number.isFinite(value)) {
		throw inputError(
			ctx,
			`Custom field "${name}" is ${String(value)}, which JSON cannot hold`,
			'Give the custom field a finite number, or text.',
			ctx.getItemIndex(),
		);
	}
	return value as IDataObject[string];
}

/**
 * What a Create answered without a body (e.g. 201 or 204) is known to hold: the fields sent, and
 * the new customer's address and id when the reply's Location header gives them.
 */
function createdWithoutBody(body: IDataObject, location: unknown): IDataObject {
	const record: IDataObject = { ...body };
	if (typeof location !== 'string' || location.trim() === '') return record;
	record.location = location.trim();
	const last = location.trim().split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? '';
	// Only an id of the documented form (cust_<token>): a path like /customers is no id.
	if (/^cust_[A-Za-z0-9_-]+$/.test(last)) record.id = last;
	return record;
}

/** Options › Skip Existing: what to match on, or undefined to create as usual. */
function skipExistingKey(ctx: IExecuteSingleFunctions): MatchKey | undefined {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const raw = options.skipExisting;
	if (raw === undefined || raw === null || raw === '') return undefined;
	if (raw === 'email' || raw === 'phone' || raw === 'name') return raw;
	throw inputError(
		ctx,
		`Skip Existing must be email, phone or name, not ${JSON.stringify(raw) ?? String(raw)}`,
		'Pick Email, Phone or First and Last Name under Options › Skip Existing, or remove the option.',
		ctx.getItemIndex(),
	);
}

/**
 * Options › Skip Existing around the Create. The output wraps the record so that the mark cannot
 * collide with the record's own fields (a customer may carry any field name, `skipped` included).
 */
function withSkipExisting(create: OperationHandler): OperationHandler {
	return async function (request) {
		const kind = skipExistingKey(this);
		if (kind === undefined) return await create.call(this, request);
		const key = recordKey(customerBody(this), kind);
		const index = await customerIndex(this, retryPolicy(this));
		const created = async () => (await create.call(this, request))[0];
		if (key === '') return [{ skipped: false, customer: await created() }];
		// One key at a time: a second row with this key waits for the first row's Create.
		return await index.oneAtATime(kind, key, async () => {
			const [existing] = index.find(kind, key);
			if (existing) return [{ skipped: true, matchedOn: kind, customer: existing }];
			const customer = await created();
			index.add(customer, { kind, key });
			return [{ skipped: false, customer }];
		});
	};
}

/**
 * For a 2xx whose reply cannot be read (a JSON list or a bare value): the API took the Create, so
 * a re-run would most likely add the customer twice.
 */
const PROBABLY_CREATED =
	'The API accepted the Create, so the customer was probably created; only its reply cannot be read. Before running this item again, look the customer up with Customer › Find (by email, phone, or first and last name): running it again would likely add it twice.';

/** Create's routing function: the request as before, with Skip Existing around it. */
const runCreate = (create: OperationHandler) => runOperation(withSkipExisting(create));

export const customerCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a customer',
	description: "Add a customer to a business's CRM",
	routing: {
		request: { method: 'POST', url: '/api/business/crm/customer/add' },
		send: { paginate: true },
		operations: {
			pagination: runCreate(async function (request) {
				const body = customerBody(this);
				const reply = await apiReply(this, {
					what: 'Create customer',
					options: { ...request, body },
					policy: retryPolicy(this),
					itemIndex: this.getItemIndex(),
					uncertainOutcome:
						'The customer may or may not have been created: check the customer list before running this item again, or it may be added twice.',
					acceptedOutcome: PROBABLY_CREATED,
					hints: {
						404: `The API did not find business "${String(body.businessId)}" (or the endpoint). Check the business ID, or pick the business from the list.`,
					},
					emptyBodyIsSuccess: true,
				});
				if (typeof reply.body === 'string')
					return [createdWithoutBody(body, reply.headers.location)];
				if (Array.isArray(reply.body)) {
					throw transportError(
						this,
						`Create customer failed: the Business CRM API answered ${reply.statusCode} with a JSON list, not the customer`,
						`Expected the new customer as a JSON object. ${PROBABLY_CREATED}`,
						[],
						this.getItemIndex(),
					);
				}
				return [extractRecord(reply.body, 'customer')];
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
								placeholder: 'e.g. company',
							},
							{
								displayName: 'Value',
								name: 'value',
								type: 'string',
								default: '',
								placeholder: 'e.g. Analytical Engines',
							},
						],
					},
				],
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'e.g. nathan@example.com',
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
