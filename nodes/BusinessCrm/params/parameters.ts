import type {
	IDataObject,
	IExecuteSingleFunctions,
	IGetNodeParameterOptions,
	IPollFunctions,
} from 'n8n-workflow';
import { inputError } from '../errors/errors';
import { asNumber, trimmedText } from '../values';

/** Get Many's Limit when none is given. */
export const DEFAULT_LIMIT = 50;

/** Get Many's Limit stops here; more than a million items is what Return All is for. */
export const MAX_LIMIT = 1_000_000;

/** The expression a parameter holds in the saved node ("={{ … }}"), or undefined when typed. */
function expressionOf(
	ctx: IExecuteSingleFunctions | IPollFunctions,
	path: string,
): string | undefined {
	let value: unknown = ctx.getNode().parameters;
	for (const key of path.split('.')) {
		value = value !== null && typeof value === 'object' ? (value as IDataObject)[key] : undefined;
	}
	if (value !== null && typeof value === 'object') value = (value as IDataObject).value;
	const inner =
		typeof value === 'string' ? /^=\s*\{\{([\s\S]*)\}\}\s*$/.exec(value)?.[1] : undefined;
	return inner?.trim() || undefined;
}

/**
 * The key of the $fromAI() call a parameter's expression reads (a tool's argument), if any.
 * n8n also accepts the call miscapitalised ($fromAi, $fromai).
 */
export function fromAiKey(
	ctx: IExecuteSingleFunctions | IPollFunctions,
	path: string,
): string | undefined {
	const expression = expressionOf(ctx, path);
	if (expression === undefined) return undefined;
	return /\$fromAI\(\s*(['"`])([A-Za-z0-9_-]{1,64})\1/i.exec(expression)?.[2];
}

/**
 * Whether a model left a parameter it fills empty: no value, null or blanks. n8n reports that
 * about one tool call in eight arrives so, and an empty optional argument means "not given".
 */
export function leftEmptyByModel(
	ctx: IExecuteSingleFunctions | IPollFunctions,
	path: string,
	value: unknown,
): boolean {
	const empty =
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
	return empty && fromAiKey(ctx, path) !== undefined;
}

/** The end of the advice when an expression gives an object for a one-value field. */
export const PICK_A_FIELD =
	'Pick the field you mean, for example {{ $json.customer.email }} rather than {{ $json.customer }}.';

/**
 * A value that must be one value, as an expression gave it. A list or an object is refused in
 * words that say so: read as text it would be "empty" (wrong advice) or its JSON (wrong data).
 */
export function oneValue(
	ctx: IExecuteSingleFunctions | IPollFunctions,
	value: unknown,
	label: string,
	path: string,
	itemIndex?: number,
): unknown {
	if (value === null || typeof value !== 'object') return value;
	const expression = expressionOf(ctx, path);
	if (Array.isArray(value)) {
		const pick = expression ? `{{ ${expression}[0] }}` : 'adding [0] to the expression';
		throw inputError(
			ctx,
			`${label} is a list of ${value.length} ${value.length === 1 ? 'value' : 'values'}, not one value`,
			`${label} takes one value, and the expression gave a list. Pick one value, for example the first with ${pick}, or split the list into items first (Split Out node) to handle each value.`,
			itemIndex,
			{ parameter: path },
		);
	}
	throw inputError(
		ctx,
		`${label} is an object, not one value`,
		`${label} takes one value, and the expression gave an object${expression ? ` ({{ ${expression} }})` : ''}. ${PICK_A_FIELD}`,
		itemIndex,
		{ parameter: path },
	);
}

/** A parameter that holds one text value (an ID, a name, an email), trimmed: see oneValue. */
export function textParameter(
	ctx: IExecuteSingleFunctions | IPollFunctions,
	path: string,
	label: string,
	options?: IGetNodeParameterOptions,
): string {
	const raw = ctx.getNodeParameter(path, '', options) as unknown;
	// A poll has no input item for its errors to name.
	const itemIndex = 'getItemIndex' in ctx ? ctx.getItemIndex() : undefined;
	return trimmedText(oneValue(ctx, raw, label, path, itemIndex));
}

/**
 * A switch as a boolean. n8n passes an expression's result through unchanged, so "true" from a
 * sheet or a JSON field arrives as text; anything but true or false is refused, not guessed.
 */
export function booleanParameter(
	ctx: IExecuteSingleFunctions,
	name: string,
	label: string,
	advice: string,
): boolean {
	const raw = ctx.getNodeParameter(name, false) as unknown;
	if (raw === true || raw === 'true') return true;
	if (raw === false || raw === 'false' || leftEmptyByModel(ctx, name, raw)) return false;
	throw inputError(
		ctx,
		`${label} must be true or false, not ${JSON.stringify(raw) ?? String(raw)}`,
		advice,
		ctx.getItemIndex(),
		{ parameter: name },
	);
}

/** A choice from a list, as picked or from an expression; refused, never guessed, when unknown. */
export function choiceParameter<T extends string>(
	ctx: IExecuteSingleFunctions,
	name: string,
	label: string,
	fallback: T,
	allowed: readonly T[],
	advice = `Pick one of the choices under ${label}, or make its expression give one of these values.`,
): T {
	const raw = ctx.getNodeParameter(name, fallback) as unknown;
	if (allowed.includes(raw as T)) return raw as T;
	if (leftEmptyByModel(ctx, name, raw)) return fallback;
	throw inputError(
		ctx,
		`${label} must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, not ${JSON.stringify(raw) ?? String(raw)}`,
		advice,
		ctx.getItemIndex(),
		{ parameter: name },
	);
}

export const RETURN_ALL_HELP =
	'Turn Return All on or off, or make its expression give true or false.';
export const LIMIT_HELP =
	'Set Limit to how many items to return, or turn on Return All to read every item.';

/** How many items Get Many should return: Infinity with Return All, else a checked Limit. */
export function wantedItems(ctx: IExecuteSingleFunctions): number {
	const returnAll = booleanParameter(ctx, 'returnAll', 'Return All', RETURN_ALL_HELP);
	if (returnAll) return Infinity;
	const raw = ctx.getNodeParameter('limit', DEFAULT_LIMIT) as unknown;
	const limit = leftEmptyByModel(ctx, 'limit', raw) ? DEFAULT_LIMIT : asNumber(raw);
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
		throw inputError(
			ctx,
			`Limit must be a whole number from 1 to ${MAX_LIMIT.toLocaleString('en-US')}, not ${JSON.stringify(raw) ?? String(raw)}`,
			LIMIT_HELP,
			ctx.getItemIndex(),
			{ parameter: 'limit' },
		);
	}
	return limit;
}

export const EMPTY_BUSINESS = 'Business is empty or only spaces';
export const EMPTY_BUSINESS_HELP =
	'Pick a business from the list, or enter its ID (By ID). When the ID comes from an expression, check that the expression gives a value for this item.';
export const DOT_BUSINESS_HELP = 'Enter the ID of a business, as shown in the business list.';

/** A business ID as it goes into a path: trimmed, never empty and never a dot segment. */
export function businessId(ctx: IExecuteSingleFunctions): string {
	const id = textParameter(ctx, 'businessId', 'Business', { extractValue: true });
	if (id === '') {
		throw inputError(ctx, EMPTY_BUSINESS, EMPTY_BUSINESS_HELP, ctx.getItemIndex(), {
			parameter: 'businessId',
		});
	}
	// A path segment "." or ".." would be resolved away by URL parsing even when percent-encoded.
	if (id === '.' || id === '..') {
		throw inputError(
			ctx,
			`"${id}" is not a valid business ID`,
			DOT_BUSINESS_HELP,
			ctx.getItemIndex(),
			{ parameter: 'businessId' },
		);
	}
	return id;
}

/** The second sentence of the advice for a required text that is empty. */
export const GIVES_A_VALUE =
	'When it comes from an expression, check that the expression gives a value for this item.';

/** A required name, trimmed; whitespace alone is refused rather than sent. */
export function requiredText(
	ctx: IExecuteSingleFunctions,
	parameter: string,
	label: string,
): string {
	const text = textParameter(ctx, parameter, label);
	if (text === '') {
		throw inputError(
			ctx,
			`${label} is empty or only spaces`,
			`Enter the customer's ${label.toLowerCase()}. ${GIVES_A_VALUE}`,
			ctx.getItemIndex(),
			{ parameter },
		);
	}
	return text;
}
