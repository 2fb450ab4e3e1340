import { isSafeObjectProperty, type IDataObject, type IExecuteSingleFunctions } from 'n8n-workflow';
import { inputError } from '../../../errors/errors';
import { businessId, oneValue, requiredText } from '../../../params/parameters';
import { trimmedText } from '../../../values';
import { nodeFields, optionalFields } from './fields';
import { SKIP_MARK } from './mark';

/** Fields the API sets itself and ignores when sent (spec: it assigns customer ids). */
const API_FIELDS = new Set(['id']);

export const NO_NAME_HELP = 'Give every custom field a name, or remove the empty one.';
export const TWICE_HELP = 'Give each custom field a different name.';
export const API_ID_HELP =
	'The API assigns each new customer its id and ignores one that is sent. Remove the custom field, or give it another name.';
export const SKIP_MARK_FIELD_HELP = `Skip if the Customer Already Exists marks each row's outcome in ${SKIP_MARK}. Give the custom field another name.`;
export const RESERVED_HELP =
	'__proto__, constructor and prototype are reserved in JSON objects, and a name may not hold a line break or another control character. Give the custom field another name.';
export const FINITE_HELP = 'Give the custom field a finite number, or text.';

function hasControlCharacter(text: string): boolean {
	for (const character of text) {
		const code = character.charCodeAt(0);
		if (code <= 0x1f || code === 0x7f) return true;
	}
	return false;
}

/** A field's text, cleaned (trimmedText); undefined when empty, so it is not sent. */
function optionalText(value: unknown): string | undefined {
	return trimmedText(value) || undefined;
}

/** The request body: the spec does not show it, so the field names are the likely ones (README). */
export function customerBody(ctx: IExecuteSingleFunctions): IDataObject {
	const body: IDataObject = {
		businessId: businessId(ctx),
		firstName: requiredText(ctx, 'firstName', 'First Name'),
		lastName: requiredText(ctx, 'lastName', 'Last Name'),
	};
	const additional = ctx.getNodeParameter('additionalFields', {}) as IDataObject;
	const itemIndex = ctx.getItemIndex();
	for (const { name, displayName } of optionalFields) {
		const path = `additionalFields.${name}`;
		const value = optionalText(oneValue(ctx, additional[name], displayName, path, itemIndex));
		if (value !== undefined) body[name] = value;
	}

	const custom = (
		additional.customFields as {
			field?: Array<{ name?: unknown; value?: unknown }>;
		}
	)?.field;
	const taken = new Set(Object.keys(nodeFields).map((name) => name.toLowerCase()));
	for (const [index, field] of (custom ?? []).entries()) {
		const name = optionalText(field.name);
		if (name === undefined) {
			throw inputError(
				ctx,
				`Custom field ${index + 1} has no name`,
				NO_NAME_HELP,
				ctx.getItemIndex(),
			);
		}
		if (taken.has(name.toLowerCase())) {
			const own = Object.entries(nodeFields).find(
				([known]) => known.toLowerCase() === name.toLowerCase(),
			)?.[1];
			throw inputError(
				ctx,
				own
					? `Custom field "${name}" would overwrite the ${own.label} the node sends`
					: `Custom field "${name}" is given twice`,
				own
					? `Enter it in the node's ${own.where} field, or give the custom field another name.`
					: TWICE_HELP,
				ctx.getItemIndex(),
			);
		}
		if (API_FIELDS.has(name.toLowerCase())) {
			throw inputError(
				ctx,
				`Custom field "${name}" cannot be set`,
				API_ID_HELP,
				ctx.getItemIndex(),
			);
		}
		if (name === SKIP_MARK) {
			throw inputError(
				ctx,
				`Custom field "${name}" cannot be set`,
				SKIP_MARK_FIELD_HELP,
				ctx.getItemIndex(),
			);
		}
		// isSafeObjectProperty: names that would change the body object itself, not add a field.
		if (!isSafeObjectProperty(name) || hasControlCharacter(name)) {
			throw inputError(
				ctx,
				`Custom field name ${JSON.stringify(name)} cannot be used`,
				RESERVED_HELP,
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
 * A custom field's value as it goes into the JSON body: text cleaned as Email and Phone are
 * (empty text, e.g. a blank cell, is not sent), any other JSON value as it is.
 */
function customValue(
	ctx: IExecuteSingleFunctions,
	name: string,
	value: unknown,
): IDataObject[string] | undefined {
	if (typeof value === 'string') return optionalText(value);
	if (typeof value === 'number' && !Number.isFinite(value)) {
		throw inputError(
			ctx,
			`Custom field "${name}" is ${String(value)}, which JSON cannot hold`,
			FINITE_HELP,
			ctx.getItemIndex(),
		);
	}
	return value as IDataObject[string];
}
