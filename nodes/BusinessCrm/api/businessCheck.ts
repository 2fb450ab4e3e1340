import { NodeApiError } from 'n8n-workflow';
import type { Context } from '../context';
import { inputError } from '../errors/errors';
import { apiRequest } from './transport';
import type { RetryPolicy } from './retries';

/**
 * Per run (the execute data every item of one node run shares, as the request gate uses) or per
 * activation (the poll context n8n keeps for every poll of one activation): the businesses
 * checked, so a run of 1,000 items, or a trigger polling every minute, asks once.
 */
const checked = new WeakMap<object, Map<string, Promise<void>>>();

/** What the check's request is for, in its errors. */
export const CHECK_WHAT = 'Check the business';
/** After the option or filter that names the business. */
export const UNKNOWN_BUSINESS_HELP =
	"names a business the API does not know. Pick the business from the list (From list) instead of typing its ID, or copy the ID again; if the ID is right, check that the credential's Organization ID is the organization the business belongs to.";

function runOf(ctx: Context): object {
	return 'getExecuteData' in ctx ? ctx.getExecuteData() : ctx;
}

async function ask(
	ctx: Context,
	id: string,
	where: string,
	policy: RetryPolicy,
	itemIndex?: number,
) {
	const unknown = await apiRequest(ctx, {
		what: CHECK_WHAT,
		// Encoded, so no ID can point the request at another path.
		method: 'GET',
		url: `/api/business/${encodeURIComponent(id)}`,
		policy,
		itemIndex,
	}).then(
		() => false,
		(error: unknown) => {
			if (error instanceof NodeApiError && error.httpCode === '404') return true;
			throw error;
		},
	);
	if (unknown) {
		// Without this check, a mistyped ID matches no customer and the node reports success.
		throw inputError(
			ctx,
			`No business ${id} in this organization`,
			`${where} ${UNKNOWN_BUSINESS_HELP}`,
			itemIndex,
			{ type: 'notFound' },
		);
	}
}

/**
 * Fails with an error naming the ID when the organization has no such business; at most one
 * answer per business per run or activation. The items waiting for a check that fails (a
 * timeout, a 5xx past the retries) each report the failure; it is then forgotten.
 */
export async function checkBusiness(
	ctx: Context,
	id: string,
	where: string,
	policy: RetryPolicy,
	itemIndex?: number,
): Promise<void> {
	const run = runOf(ctx);
	let businesses = checked.get(run);
	if (!businesses) {
		businesses = new Map();
		checked.set(run, businesses);
	}
	let check = businesses.get(id);
	if (!check) {
		check = ask(ctx, id, where, policy, itemIndex);
		businesses.set(id, check);
		const known = businesses;
		// A check that failed is asked again by whoever comes next (a later item, the next try of
		// Retry On Fail, the next poll); only its answer, the business or its absence, is kept.
		check.catch((error: unknown) => {
			if (error instanceof NodeApiError) known.delete(id);
		});
	}
	await check;
}
