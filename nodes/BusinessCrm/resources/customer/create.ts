import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { MATCH_KEY_NAMES, recordKey, type MatchKey } from '../../state/customerIndex';
import {
	executionCustomers,
	keyTurns,
	listRead,
	type CreateOrigin,
} from '../../state/executionCustomers';
import { businessIdLocator } from '../../params/descriptions';
import { inputError, reachedOf, transportError } from '../../errors/errors';
import { runOperation, type OperationHandler } from '../operation';
import { extractRecord } from '../../api/replyShapes';
import { apiReply } from '../../api/transport';
import { businessId, oneValue, requiredText, retryPolicy } from '../../params/parameters';

const showOnlyForCreate = { resource: ['customer'], operation: ['create'] };

const CREATE_URL = '/api/business/crm/customer/add';

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
	const itemIndex = ctx.getItemIndex();
	for (const [field, label] of [
		['email', 'Email'],
		['phone', 'Phone'],
	] as const) {
		const path = `additionalFields.${field}`;
		const value = optionalText(oneValue(ctx, additional[field], label, path, itemIndex));
		if (value !== undefined) body[field] = value;
	}

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
		if (name === SKIP_MARK) {
			throw inputError(
				ctx,
				`Custom field "${name}" cannot be set`,
				`Skip if the Customer Already Exists marks each row's outcome in ${SKIP_MARK}. Give the custom field another name.`,
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

/** Where Skip Existing marks each row's outcome; the node refuses a custom field of that name. */
export const SKIP_MARK = '_skipExisting';

/** What Skip Existing did with a row, as `_skipExisting.outcome` says it. */
export type SkipOutcome =
	| 'created'
	| 'alreadyExists'
	| 'notCreatedNoMatchValue'
	| 'createdNoMatchValue';

/** The match value as a sentence names it. */
const MATCH_VALUE_WORDS: Record<MatchKey, string> = {
	email: 'email',
	phone: 'phone number',
	name: 'first and last name',
};

/** `_skipExisting.result`: the outcome in words for people who branch on it or read it. */
export function skipResult(outcome: SkipOutcome, matchOn: MatchKey): string {
	const value = MATCH_VALUE_WORDS[matchOn];
	switch (outcome) {
		case 'created':
			return `Created: no customer with this ${value} was in the CRM`;
		case 'alreadyExists':
			return `Not created: a customer with this ${value} is already in the CRM`;
		case 'notCreatedNoMatchValue':
			return `Not created: the row has no ${value} to look the customer up by`;
		case 'createdNoMatchValue':
			return `Created without a check: the row has no ${value} to look the customer up by`;
	}
}

/** What a Create that failed after it may have reached the API says (and what Skip Existing looks for). */
const MAYBE_CREATED =
	'The customer may or may not have been created: check the customer list before running this item again, or it may be added twice.';

interface SkipExisting {
	matchOn: MatchKey;
	/** Whether only customers of the row's business count as a match. */
	inBusiness: boolean;
	/** What to do with a row whose match value is empty. */
	noMatchValue: 'skip' | 'create' | 'error';
}

/** A choice from a list, as typed or from an expression; refused, never guessed, when unknown. */
function choice<T extends string>(
	ctx: IExecuteSingleFunctions,
	name: string,
	label: string,
	fallback: T,
	allowed: readonly T[],
): T {
	const raw = ctx.getNodeParameter(name, fallback) as unknown;
	if (allowed.includes(raw as T)) return raw as T;
	throw inputError(
		ctx,
		`${label} must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, not ${JSON.stringify(raw) ?? String(raw)}`,
		`Pick one of the choices under ${label}, or make its expression give one of these values.`,
		ctx.getItemIndex(),
	);
}

/** Skip if the Customer Already Exists and its settings; undefined to create as usual. */
function skipExistingSettings(ctx: IExecuteSingleFunctions): SkipExisting | undefined {
	const on = ctx.getNodeParameter('skipExisting', false) as unknown;
	if (on === false || on === 'false') return undefined;
	if (on !== true && on !== 'true') {
		throw inputError(
			ctx,
			`Skip if the Customer Already Exists must be true or false, not ${JSON.stringify(on) ?? String(on)}`,
			'Turn the switch on or off, or make its expression give true or false.',
			ctx.getItemIndex(),
		);
	}
	const matchOn = choice<MatchKey>(ctx, 'matchOn', 'Match On', 'email', ['email', 'phone', 'name']);
	const scope = choice(ctx, 'matchWithin', 'Match Within', 'business', ['business', 'all']);
	const noMatchValue =
		matchOn === 'name'
			? 'error'
			: choice(ctx, 'noMatchValue', 'Rows Without a Match Value', 'error', [
					'skip',
					'create',
					'error',
				]);
	return { matchOn, inBusiness: scope === 'business', noMatchValue };
}

/** The record flat, as without Skip Existing, with the row's outcome beside it. */
function marked(
	ctx: IExecuteSingleFunctions,
	record: IDataObject,
	outcome: SkipOutcome,
	matchOn: MatchKey,
): IDataObject {
	if (Object.prototype.hasOwnProperty.call(record, SKIP_MARK)) {
		const created = outcome === 'created' || outcome === 'createdNoMatchValue';
		const who =
			record.id === undefined || record.id === null
				? 'The customer'
				: `Customer ${String(record.id)}`;
		throw inputError(
			ctx,
			`${who} has its own field "${SKIP_MARK}"`,
			`The node marks each row's outcome in ${SKIP_MARK}, which would overwrite the customer's own value.${created ? ' The customer was created.' : ''} Rename the field in the CRM, or turn off Skip if the Customer Already Exists.`,
			ctx.getItemIndex(),
		);
	}
	// skipped means one thing, "already there", so a branch on it never drops a row never created.
	const skipped = outcome === 'alreadyExists';
	const created = outcome === 'created' || outcome === 'createdNoMatchValue';
	const result = skipResult(outcome, matchOn);
	return { ...record, [SKIP_MARK]: { skipped, created, outcome, result, matchOn } };
}

/**
 * Whether a failed Create proves that nothing was created: refused before sending (input, a
 * refused connection, n8n's own checks), or answered 4xx (429 past the retries included). A 5xx,
 * a timeout or a dropped connection after sending, a reply that cannot be read: the customer may
 * exist, so the error is treated as "maybe created".
 */
function provesNothingCreated(error: unknown): boolean {
	if (error instanceof NodeOperationError) return true;
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	if (error.httpCode) return status >= 400 && status < 500;
	return reachedOf(error) === 'no';
}

/**
 * Skip if the Customer Already Exists, around the Create. A later row whose key met a Create that
 * may or may not have happened is not sent: a fresh list read could not prove the customer absent
 * (the API may still be adding it), and sending could add it twice.
 */
function withSkipExisting(create: OperationHandler): OperationHandler {
	return async function () {
		const settings = skipExistingSettings(this);
		if (settings === undefined) return await create.call(this);
		const { matchOn, inBusiness, noMatchValue } = settings;
		const body = customerBody(this);
		const key = recordKey(body, matchOn);
		const what = MATCH_KEY_NAMES[matchOn];
		if (key === '') {
			if (noMatchValue === 'skip') {
				return [marked(this, { id: null, ...body }, 'notCreatedNoMatchValue', matchOn)];
			}
			if (noMatchValue === 'error') {
				throw inputError(
					this,
					`${what} is empty, so the node cannot tell whether this customer already exists`,
					`Give this row ${matchOn === 'email' ? 'an email' : 'a phone number'}. To go on with the other rows, set Settings › On Error to Continue (using error output): such rows then go to the error output. Or choose under Rows Without a Match Value to output such rows without creating them, or to create them anyway (a re-run then creates them again).`,
					this.getItemIndex(),
				);
			}
			return [marked(this, (await create.call(this))[0], 'createdNoMatchValue', matchOn)];
		}
		const business = String(body.businessId);
		// One key at a time: a second row with this key waits for the first row's Create.
		return await keyTurns(this).oneAtATime(matchOn, key, async () => {
			const { index: list, customers: execution } = await listRead(this);
			const candidates = [...list.find(matchOn, key), ...execution.created.find(matchOn, key)];
			const match = candidates.find((c) => !inBusiness || execution.businessOf(c) === business);
			if (match) return [marked(this, match, 'alreadyExists', matchOn)];
			const unplaced = inBusiness && candidates.find((c) => execution.businessOf(c) === '');
			if (unplaced) {
				throw inputError(
					this,
					`Customer ${String(unplaced.id)} has this ${what.toLowerCase()} but the list does not say which business it is in`,
					`The node neither skips this row (the customer may belong to another business) nor creates it (it may be a customer of ${business} already). Check the customer in the CRM, or set Match Within to All Businesses to count a customer of any business as a match.`,
					this.getItemIndex(),
				);
			}
			const earlier = execution.uncertainCreate(matchOn, key, inBusiness ? business : undefined);
			if (earlier) {
				throw inputError(
					this,
					`Create customer not sent: ${whereFrom(this, earlier)}, with the same ${what.toLowerCase()}, may have created this customer`,
					`That item's Create failed after it was sent (a timeout, a dropped connection or a server error), so the customer may or may not have been created. Sending this item too could add it twice. Check the customer list (Customer › Find) before running these items again.`,
					this.getItemIndex(),
				);
			}
			const customer = (await create.call(this))[0];
			return [marked(this, customer, 'created', matchOn)];
		});
	};
}

/** Where an earlier Create was sent from, as seen from this item. */
function whereFrom(ctx: IExecuteSingleFunctions, earlier: CreateOrigin): string {
	const item = `item ${earlier.itemIndex}`;
	if (earlier.run === ctx.getExecuteData()) return `${item} of this run`;
	if (earlier.nodeName === ctx.getNode().name) return `${item} of an earlier run of this node`;
	return `${item} of the node "${earlier.nodeName}" earlier in this execution`;
}

/**
 * Every Create, with or without Skip Existing, tells the execution what it did: a customer it
 * created joins what later Finds and Skip Existing of the execution see, and a Create that may
 * have happened stops a later Skip Existing Create of its keys.
 */
function remembered(create: OperationHandler): OperationHandler {
	return async function () {
		const body = customerBody(this);
		const execution = await executionCustomers(this);
		const business = String(body.businessId);
		const origin: CreateOrigin = {
			nodeName: this.getNode().name,
			run: this.getExecuteData(),
			itemIndex: this.getItemIndex(),
		};
		const attempt = create.call(this);
		// Noted before the failure reaches this item's error, so the next row with the key sees it.
		attempt.catch((error: unknown) => {
			if (provesNothingCreated(error)) return;
			execution.addUncertain(body, { ...origin, businessId: business });
			execution.unshareReads();
		});
		const records = await attempt;
		for (const customer of records) execution.addCreated(customer, body, business);
		return records;
	};
}

/**
 * For a 2xx whose reply cannot be read (a JSON list or a bare value): the API took the Create, so
 * a re-run would most likely add the customer twice.
 */
const PROBABLY_CREATED =
	'The API accepted the Create, so the customer was probably created; only its reply cannot be read. Before running this item again, look the customer up with Customer › Find (by email, phone, or first and last name): running it again would likely add it twice.';

/** Create's routing function: the request as before, remembered, with Skip Existing around it. */
const runCreate = (create: OperationHandler) => runOperation(withSkipExisting(remembered(create)));

export const customerCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a customer',
	description:
		"Add a customer to a business's CRM, given the business ID and the customer's first and last name; outputs the new customer with its ID (cust_…)",
	routing: {
		request: { method: 'POST', url: CREATE_URL },
		send: { paginate: true },
		operations: {
			pagination: runCreate(async function () {
				const body = customerBody(this);
				const reply = await apiReply(this, {
					what: 'Create customer',
					method: 'POST',
					url: CREATE_URL,
					body,
					policy: retryPolicy(this),
					itemIndex: this.getItemIndex(),
					uncertainOutcome: MAYBE_CREATED,
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
						'yes',
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
	{
		displayName: 'Skip if the Customer Already Exists',
		name: 'skipExisting',
		type: 'boolean',
		default: false,
		description:
			'Whether to look the customer up first and, when it is already in the CRM, output the existing customer instead of adding it again, so that an import can safely run twice. Each item then carries _skipExisting: skipped is true only when the customer was already there, created says whether this row created it, result says what happened in words. Costs one read of the whole customer list per execution, shared with Find (one request per 99 customers, however many rows).',
		displayOptions: { show: showOnlyForCreate },
	},
	{
		displayName: 'Match On',
		name: 'matchOn',
		type: 'options',
		default: 'email',
		description: 'Which field tells that the customer is already in the CRM',
		displayOptions: { show: { ...showOnlyForCreate, skipExisting: [true] } },
		options: [
			{
				name: 'Email',
				value: 'email',
				description: 'Compared without the spaces around it and regardless of capitals',
			},
			{
				name: 'Phone',
				value: 'phone',
				description: 'By its digits, with or without the country code, as Find matches it',
			},
			{
				name: 'First and Last Name',
				value: 'name',
				description:
					'Both names, compared without the spaces around them and regardless of capitals',
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
		displayOptions: { show: { ...showOnlyForCreate, skipExisting: [true] } },
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
		displayOptions: {
			show: { ...showOnlyForCreate, skipExisting: [true], matchOn: ['email', 'phone'] },
		},
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
];
