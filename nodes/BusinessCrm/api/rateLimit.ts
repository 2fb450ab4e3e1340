import type { Context } from '../context';
import type { ApiReply } from '../errors/redaction';
import { plural, seconds } from '../values';
import { nextWaitMs, requestedWait, type RetryPolicy } from './retries';

/** After "Raise Max Retries" or "Raise Max Total Wait to at least <n> s". */
export const UNDER_OPTIONS = 'under Options on the Parameters tab';
/** After the limit to raise, where input items can be spaced out. */
export const OR_BATCHING =
	"or space the input items out on the node's Settings tab (Request Options › Batching).";
export const RATE_LIMIT_HIT = 'The API rate limit was hit and';
export const NO_WAIT_SAID = 'it did not say how long to wait';

/** The advice in a list search, which has no Options to raise. */
export const OPEN_LIST_AGAIN = 'Wait a moment, then open the list again.';

/**
 * What the user can change once the rate limit outlasted the retries, where the request came
 * from. `raise` names the one limit that stopped the retries, so the advice is the one that helps.
 */
function rateLimitAdvice(ctx: Context, raise: string, listPage: boolean): string {
	if (!('getExecuteData' in ctx)) {
		return 'getActivationMode' in ctx ? 'The next poll tries again.' : OPEN_LIST_AGAIN;
	}
	const options = `${raise} ${UNDER_OPTIONS}`;
	return listPage ? `${options}.` : `${options}, ${OR_BATCHING}`;
}

/** What to tell the user when a 429 outlasted the retries: the wait asked for, and what to raise. */
export function rateLimitMessage(
	ctx: Context,
	reply: ApiReply,
	policy: RetryPolicy,
	{ attempt, waitedMs }: { attempt: number; waitedMs: number },
	listPage: boolean,
): string {
	const wait = requestedWait(reply);
	const askedText =
		wait === undefined
			? NO_WAIT_SAID
			: 'ms' in wait
				? `it asked to wait ${seconds(wait.ms)}`
				: `it gave an invalid wait (${wait.invalid})`;
	// The retries ran out, or the next wait would pass Max Total Wait: name the one that stopped.
	const raise =
		attempt >= policy.maxRetries
			? 'Raise Max Retries'
			: `Raise Max Total Wait to at least ${Math.ceil((waitedMs + nextWaitMs(wait, attempt)) / 1000)} s`;
	return `${RATE_LIMIT_HIT} ${askedText}. Gave up after ${plural(attempt, 'retry', 'retries')} and ${seconds(waitedMs)} of waiting (limits: ${plural(policy.maxRetries, 'retry', 'retries')}, ${seconds(policy.maxWaitMs)}). ${rateLimitAdvice(ctx, raise, listPage)}`;
}
