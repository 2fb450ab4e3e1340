/** The node's Options collection, read per item: Max Retries, Max Total Wait and Pages Read at Once. */
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { inputError, SETUP } from '../errors/errors';
import { asNumber } from '../values';
import { DEFAULT_PAGES_IN_PARALLEL, MAX_PAGES_IN_PARALLEL, type ListSource } from '../api/lists';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../api/retries';

export const MAX_RETRIES_HELP =
	'Set Options › Max Retries to how often a rate-limited request may be sent again.';
export const MAX_WAIT_HELP =
	'Set Options › Max Total Wait to how long one request may wait for the rate limit in all.';

/** The node's Options › Max Retries and Max Total Wait, checked. */
export function retryPolicy(ctx: IExecuteSingleFunctions): RetryPolicy {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const maxRetries = asNumber(options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries);
	const maxWait = asNumber(options.maxRetryWait ?? DEFAULT_RETRY_POLICY.maxWaitMs / 1000);
	if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 100) {
		throw inputError(
			ctx,
			`Max Retries must be a whole number from 0 to 100, not ${JSON.stringify(options.maxRetries)}`,
			MAX_RETRIES_HELP,
			ctx.getItemIndex(),
			SETUP,
		);
	}
	if (!Number.isFinite(maxWait) || maxWait < 0 || maxWait > 3600) {
		throw inputError(
			ctx,
			`Max Total Wait must be from 0 to 3600 seconds, not ${JSON.stringify(options.maxRetryWait)}`,
			MAX_WAIT_HELP,
			ctx.getItemIndex(),
			SETUP,
		);
	}
	return { maxRetries, maxWaitMs: maxWait * 1000 };
}

export const PAGES_HELP =
	'Set Options › Pages Read at Once to how many pages of the list may be asked for at the same time (1 reads page after page).';

/** The node's Options › Pages Read at Once, checked. */
export function pagesInParallel(ctx: IExecuteSingleFunctions): number {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const raw = options.pagesInParallel ?? DEFAULT_PAGES_IN_PARALLEL;
	const pages = asNumber(raw);
	if (!Number.isInteger(pages) || pages < 1 || pages > MAX_PAGES_IN_PARALLEL) {
		throw inputError(
			ctx,
			`Pages Read at Once must be a whole number from 1 to ${MAX_PAGES_IN_PARALLEL}, not ${JSON.stringify(options.pagesInParallel) ?? String(options.pagesInParallel)}`,
			PAGES_HELP,
			ctx.getItemIndex(),
			SETUP,
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
