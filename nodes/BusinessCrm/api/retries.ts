/** When a request is sent again, and how long to wait before it. */
import { clock } from './clock';
import type { ApiReply } from '../errors/redaction';

/** How hard to try before giving up; the node's Options let a user change it. */
export interface RetryPolicy {
	/** Retries after the first attempt. */
	maxRetries: number;
	/** Total time all waits of one request may add up to. */
	maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 5,
	maxWaitMs: 120_000,
};

/** Statuses after which an idempotent request is worth sending again. */
export const TRANSIENT_STATUSES = new Set([502, 503, 504]);
/** Connection failures after which an idempotent request is worth sending again. */
export const TRANSIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'EAI_AGAIN']);

/** 1 s, 2 s, 4 s, … capped at 30 s: for replies that do not say how long to wait. */
export function backoffMs(attempt: number): number {
	return Math.min(30_000, 1000 * 2 ** attempt);
}

/** The wait a reply asks for: one that can be waited, one that cannot (named for the message), or none. */
export type RequestedWait = { ms: number } | { invalid: string } | undefined;

/** `retryAfter` in the body (spec 7): a number, or a number in a string. */
function bodyWait(asked: unknown): RequestedWait {
	if (asked === undefined || asked === null) return undefined;
	if (typeof asked === 'string' && asked.trim() === '') return undefined;
	// Only a number (or a number in a string) counts: Number(null) would be an instant retry.
	const value = typeof asked === 'number' || typeof asked === 'string' ? Number(asked) : NaN;
	if (Number.isFinite(value) && value >= 0) return { ms: Math.ceil(value * 1000) };
	return { invalid: `retryAfter ${JSON.stringify(asked)}` };
}

/** A Retry-After header: seconds, or an HTTP date. */
function headerWait(header: unknown, now: number): RequestedWait {
	// Spaces alone say nothing, as no header would.
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	const seconds = Number(header);
	// A number is never read as a date: V8 parses "-5" as a day in 2001, an instant retry.
	if (!Number.isNaN(seconds)) {
		if (Number.isFinite(seconds) && seconds >= 0) return { ms: Math.ceil(seconds * 1000) };
	} else {
		const date = Date.parse(header);
		if (Number.isFinite(date)) return { ms: Math.max(0, date - now) };
	}
	return { invalid: `Retry-After ${JSON.stringify(header)}` };
}

/**
 * The wait the reply asks for: the body's `retryAfter`, else the Retry-After header. When neither
 * can be waited, the first one given that cannot, so the message can name it.
 */
export function requestedWait(reply: ApiReply, now = clock.now()): RequestedWait {
	const fromBody = bodyWait(
		(reply.body as { retryAfter?: unknown } | null | undefined)?.retryAfter,
	);
	if (fromBody && 'ms' in fromBody) return fromBody;
	const fromHeader = headerWait(reply.headers['retry-after'], now);
	if (fromHeader && 'ms' in fromHeader) return fromHeader;
	return fromBody ?? fromHeader;
}

/** Milliseconds to wait as the reply asks; undefined when it asks for no wait that can be waited. */
export function requestedWaitMs(reply: ApiReply, now = clock.now()): number | undefined {
	const wait = requestedWait(reply, now);
	return wait && 'ms' in wait ? wait.ms : undefined;
}

/** A wait the reply gave that cannot be waited (negative, not a number), for the message. */
export function invalidWait(reply: ApiReply): string | undefined {
	const wait = requestedWait(reply);
	return wait && 'invalid' in wait ? wait.invalid : undefined;
}

/** The wait before the next retry: what the reply asked for, else the backoff. */
export function nextWaitMs(wait: RequestedWait, attempt: number): number {
	return wait && 'ms' in wait ? wait.ms : backoffMs(attempt);
}
