import type {
	IDataObject,
	IExecuteSingleFunctions,
	IGetNodeParameterOptions,
	IPollFunctions,
} from 'n8n-workflow';
import { inputError } from '../errors/errors';
import { trimmedText } from '../values';
import { DEFAULT_PAGES_IN_PARALLEL, MAX_PAGES_IN_PARALLEL, type ListSource } from '../api/lists';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../api/retries';

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
		);
	}
	throw inputError(
		ctx,
		`${label} is an object, not one value`,
		`${label} takes one value, and the expression gave an object${expression ? ` ({{ ${expression} }})` : ''}. Pick the field you mean, for example {{ $json.customer.email }} rather than {{ $json.customer }}.`,
		itemIndex,
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

function asNumber(value: unknown): number {
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && value.trim() !== '') return Number(value);
	return NaN;
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
	if (raw === false || raw === 'false') return false;
	throw inputError(
		ctx,
		`${label} must be true or false, not ${JSON.stringify(raw) ?? String(raw)}`,
		advice,
		ctx.getItemIndex(),
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
	throw inputError(
		ctx,
		`${label} must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, not ${JSON.stringify(raw) ?? String(raw)}`,
		advice,
		ctx.getItemIndex(),
	);
}

/** How many items Get Many should return: Infinity with Return All, else a checked Limit. */
export function wantedItems(ctx: IExecuteSingleFunctions): number {
	const returnAll = booleanParameter(
		ctx,
		'returnAll',
		'Return All',
		'Turn Return All on or off, or make its expression give true or false.',
	);
	if (returnAll) return Infinity;
	const raw = ctx.getNodeParameter('limit', 50) as unknown;
	const limit = asNumber(raw);
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
		throw inputError(
			ctx,
			`Limit must be a whole number from 1 to ${MAX_LIMIT.toLocaleString('en-US')}, not ${JSON.stringify(raw) ?? String(raw)}`,
			'Set Limit to how many items to return, or turn on Return All to read every item.',
			ctx.getItemIndex(),
		);
	}
	return limit;
}

/** A business ID as it goes into a path: trimmed, never empty and never a dot segment. */
export function businessId(ctx: IExecuteSingleFunctions): string {
	const id = textParameter(ctx, 'businessId', 'Business', { extractValue: true });
	if (id === '') {
		throw inputError(
			ctx,
			'Business is empty or only spaces',
			'Pick a business from the list, or enter its ID (By ID). When the ID comes from an expression, check that the expression gives a value for this item.',
			ctx.getItemIndex(),
		);
	}
	// A path segment "." or ".." would be resolved away by URL parsing even when percent-encoded.
	if (id === '.' || id === '..') {
		throw inputError(
			ctx,
			`"${id}" is not a valid business ID`,
			'Enter the ID of a business, as shown in the business list.',
			ctx.getItemIndex(),
		);
	}
	return id;
}

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
			`Enter the customer's ${label.toLowerCase()}. When it comes from an expression, check that the expression gives a value for this item.`,
			ctx.getItemIndex(),
		);
	}
	return text;
}

/** The node's Options › Max Retries and Max Total Wait, checked. */
export function retryPolicy(ctx: IExecuteSingleFunctions): RetryPolicy {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const maxRetries = asNumber(options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries);
	const maxWait = asNumber(options.maxRetryWait ?? DEFAULT_RETRY_POLICY.maxWaitMs / 1000);
	if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 100) {
		throw inputError(
			ctx,
			`Max Retries must be a whole number from 0 to 100, not ${JSON.stringify(options.maxRetries)}`,
			'Set Options › Max Retries to how often a rate-limited request may be sent again.',
			ctx.getItemIndex(),
		);
	}
	if (!Number.isFinite(maxWait) || maxWait < 0 || maxWait > 3600) {
		throw inputError(
			ctx,
			`Max Total Wait must be from 0 to 3600 seconds, not ${JSON.stringify(options.maxRetryWait)}`,
			'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.',
			ctx.getItemIndex(),
		);
	}
	return { maxRetries, maxWaitMs: maxWait * 1000 };
}

/** The node's Options › Pages Read at Once, checked. */
export function pagesInParallel(ctx: IExecuteSingleFunctions): number {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const raw = options.pagesInParallel ?? DEFAULT_PAGES_IN_PARALLEL;
	const pages = asNumber(raw);
	if (!Number.isInteger(pages) || pages < 1 || pages > MAX_PAGES_IN_PARALLEL) {
		throw inputError(
			ctx,
			`Pages Read at Once must be a whole number from 1 to ${MAX_PAGES_IN_PARALLEL}, not ${JSON.stringify(options.pagesInParallel) ?? String(options.pagesInParallel)}`,
			'Set Options › Pages Read at Once to how many pages of the list may be asked for at the same time (1 reads page after page).',
			ctx.getItemIndex(),
		);
	}
	return pages;
}

/** An operation's read of `list`, with this item's Options › Max Retries, Max Total Wait and Pages Read at Once. */
export function listOfItem(
	ctx: IExecuteSingleFunctions,
	list: Omit<ListSource, 'what' | 'policy'>,
	what: string,
): ListSource {
	return {
		...list,
		what,
		policy: retryPolicy(ctx),
		pagesInParallel: pagesInParallel(ctx),
		itemIndex: ctx.getItemIndex(),
	};
}
