import { sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { checkCredential, CREDENTIAL_TYPE, type CheckedCredential } from './credential';
import { httpError, inputError, redact, transportError, type ApiReply } from './errors';
import { describeFailure, describeRedirect, errorCode } from './failures';

type Context = IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions;

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

export interface ApiRequest {
	/** Says what the request was for, in errors ("Get business", "Create customer"). */
	what: string;
	options: IHttpRequestOptions;
	/**
	 * Set for requests that change data, saying what may have happened. Such a request is sent
	 * again only after a 429, where the API surely did nothing; after a timeout, a dropped
	 * connection or a 5xx the change may have happened, so it is not resent and the error ends
	 * with this text.
	 */
	uncertainOutcome?: string;
	policy: RetryPolicy;
	itemIndex?: number;
	/** Per-status hints that replace the generic one, e.g. naming the id a 404 did not find. */
	hints?: Record<number, string>;
	/**
	 * For a change: what a 2xx whose JSON is no object or list means (the API took it), said
	 * instead of uncertainOutcome and the Base URL advice.
	 */
	acceptedOutcome?: string;
	/** Whether a 2xx without a body is a success (Create); reads need a body. */
	emptyBodyIsSuccess?: boolean;
	/** A page of a list read: n8n's Batching spaces out input items, not the pages of one read. */
	listPage?: boolean;
}

/**
 * Holds back the requests of one node run. n8n starts every input item's request at once, so
 * 1,000 items would be 1,000 parallel requests and a wall of 429s; a request keeps its slot
 * while it waits out a 429, which makes the others wait too.
 */
export const MAX_PARALLEL_REQUESTS = 10;

/** Per success, the paced rate grows by this many requests/s: about 1% a second at any rate. */
const PROBE_STEP = 0.01;
/** After a further 429 the paced rate is cut to this share. */
const BACKOFF = 0.95;
/** Never slower than one request in 10 s, so a run cannot be paced to a standstill. */
const MIN_RATE = 0.1;

/**
 * Paces a run the API has rate-limited, like the AWS SDKs' adaptive retry mode. Until the first
 * 429 nothing is held back. That 429 holds every request of the run until the time the API asked
 * for; from then on requests leave at the rate that succeeded, raised a little with every success
 * in case the limit rises, and cut once per rate-limit window that still answers 429.
 */
class Pacer {
	private startedAt?: number;
	private successes = 0;
	private holdUntil = 0;
	/** Set by the first 429 after a success: the rate is measured when the hold ends. */
	private measuring = false;
	/** The time before the first 429, and the wait it asked for. */
	private before = 0;
	private asked = 0;
	/** Requests per second once paced. */
	private rate?: number;
	private nextAt = 0;
	private changedAt = 0;
	/** Until then, 429s come from the window that was already full when the rate was cut. */
	private quietUntil = 0;

	/** Waits for this request's turn; returns the time it may be sent. */
	async turn(signal?: AbortSignal): Promise<number> {
		for (;;) {
			const now = Date.now();
			this.startedAt ??= now;
			if (now < this.holdUntil) {
				await sleep(this.holdUntil - now, signal);
				continue;
			}
			if (this.measuring) {
				this.measuring = false;
				// The successes were spread over the time before the 429, or over one window at
				// least, which is no shorter than the wait the API asked for.
				const span = Math.max(1, this.asked, this.before);
				this.rate = Math.max(MIN_RATE, (this.successes * 1000) / span);
				this.nextAt = now;
			}
			if (this.rate === undefined) return now;
			const at = Math.max(now, this.nextAt);
			this.nextAt = at + 1000 / this.rate;
			if (at > now) await sleep(at - now, signal);
			return at;
		}
	}

	succeeded(): void {
		this.successes++;
		if (this.rate !== undefined) this.rate += PROBE_STEP;
	}

	/** A 429 for a request sent at `sentAt`, which will be retried after `waitMs`. */
	throttled(sentAt: number, waitMs: number): void {
		// Replies to requests sent before the last change say nothing new.
		const now = Date.now();
		if (sentAt < this.changedAt || now < this.quietUntil) return;
		this.changedAt = now;
		if (this.rate === undefined) {
			this.holdUntil = Math.max(this.holdUntil, now + waitMs);
			if (this.successes > 0 && !this.measuring) {
				this.measuring = true;
				this.before = now - (this.startedAt ?? now);
				this.asked = waitMs;
			}
			return;
		}
		this.rate = Math.max(MIN_RATE, this.rate * BACKOFF);
		this.quietUntil = now + waitMs;
	}
}

class RequestGate {
	private active = 0;
	private readonly waiting: Array<() => void> = [];
	readonly pacer = new Pacer();

	async acquire(): Promise<void> {
		if (this.active < MAX_PARALLEL_REQUESTS) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.active--;
	}
}

// Keyed by the run's execute data, which every item of one node run shares; weak, so a
// finished run's gate goes with it.
const gates = new WeakMap<object, RequestGate>();

function gateFor(ctx: Context): RequestGate | undefined {
	if (!('getExecuteData' in ctx)) return undefined;
	const key = ctx.getExecuteData();
	let gate = gates.get(key);
	if (!gate) {
		gate = new RequestGate();
		gates.set(key, gate);
	}
	return gate;
}

/** Statuses after which an idempotent request is worth sending again. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);
/** Connection failures after which an idempotent request is worth sending again. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'EAI_AGAIN']);

/** Seconds to wait as the reply asks: `retryAfter` in the body (spec 7), else a Retry-After header. */
export function requestedWaitMs(reply: ApiReply, now = Date.now()): number | undefined {
	const asked = (reply.body as { retryAfter?: unknown } | null | undefined)?.retryAfter;
	// Only a number (or a number in a string) counts: Number(null) would be an instant retry.
	const fromBody =
		typeof asked === 'number' || (typeof asked === 'string' && asked.trim() !== '')
			? Number(asked)
			: NaN;
	if (Number.isFinite(fromBody) && fromBody >= 0) return Math.ceil(fromBody * 1000);
	const header = reply.headers['retry-after'];
	if (typeof header === 'string' && header.trim() !== '') {
		const seconds = Number(header);
		// A number is never read as a date: V8 parses "-5" as a day in 2001, an instant retry.
		if (!Number.isNaN(seconds)) {
			return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
		}
		const date = Date.parse(header);
		if (Number.isFinite(date)) return Math.max(0, date - now);
	}
	return undefined;
}

/** A wait the reply gave that cannot be waited (negative, not a number), for the message. */
export function invalidWait(reply: ApiReply): string | undefined {
	const asked = (reply.body as { retryAfter?: unknown } | null | undefined)?.retryAfter;
	if (asked !== undefined && asked !== null && asked !== '') {
		const value = typeof asked === 'number' || typeof asked === 'string' ? Number(asked) : NaN;
		if (!Number.isFinite(value) || value < 0) return `retryAfter ${JSON.stringify(asked)}`;
	}
	const header = reply.headers['retry-after'];
	// Spaces alone are Number 0, a wait that can be waited: nothing to name.
	if (typeof header === 'string') {
		const value = Number(header);
		if (
			Number.isNaN(value)
				? !Number.isFinite(Date.parse(header))
				: value < 0 || !Number.isFinite(value)
		) {
			return `Retry-After ${JSON.stringify(header)}`;
		}
	}
	return undefined;
}

/** What the user can change once the rate limit outlasted the retries, where the request came from. */
function rateLimitAdvice(ctx: Context, request: ApiRequest): string {
	if (!('getExecuteData' in ctx)) {
		return 'getActivationMode' in ctx
			? 'The next poll tries again.'
			: 'Wait a moment, then open the list again.';
	}
	const options = 'Raise Max Retries or Max Total Wait under Options on the Parameters tab';
	return request.listPage
		? `${options}.`
		: `${options}, or space the input items out on the node's Settings tab (Request Options › Batching).`;
}

function plural(count: number, one: string, many: string): string {
	return `${count} ${count === 1 ? one : many}`;
}

/** Milliseconds as seconds for a message: "0.3 s", "2 s". */
function seconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(1))} s`;
}

/** 1 s, 2 s, 4 s, … capped at 30 s: for replies that do not say how long to wait. */
export function backoffMs(attempt: number): number {
	return Math.min(30_000, 1000 * 2 ** attempt);
}

/**
 * Reads and checks the credential before anything is sent. A Base URL the node cannot use, or a
 * key with a character HTTP cannot carry, would otherwise fail with an unhelpful message.
 */
async function readCredential(ctx: Context, itemIndex?: number): Promise<CheckedCredential> {
	const checked = checkCredential(await ctx.getCredentials(CREDENTIAL_TYPE));
	if ('problem' in checked) throw inputError(ctx, checked.problem, checked.fix, itemIndex);
	return checked;
}

// One read per item, not per page: in n8n each getCredentials is a database read and decryption.
const credentialByContext = new WeakMap<object, Promise<CheckedCredential>>();

function credentialFor(ctx: Context, itemIndex?: number): Promise<CheckedCredential> {
	let credential = credentialByContext.get(ctx);
	if (!credential) {
		credential = readCredential(ctx, itemIndex);
		credentialByContext.set(ctx, credential);
	}
	return credential;
}

/** What must never appear in a message or output of this item: the key as sent, and so on. */
export async function credentialSecrets(ctx: Context, itemIndex?: number): Promise<string[]> {
	return (await credentialFor(ctx, itemIndex)).secrets;
}

/**
 * Makes the next request of this context read the credential again. n8n keeps one poll context
 * for as long as a workflow is active, across edits of the credential, so a trigger calls this
 * at the start of every poll.
 */
export function forgetCredentialSecrets(ctx: Context): void {
	credentialByContext.delete(ctx);
}

/** A reply body as read: JSON (any value), text that is not JSON, or nothing. */
type Body = { json: true; value: unknown } | { json: false; text: string };

function readBody(raw: unknown): Body {
	const text = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : String(raw);
	if (text.trim() === '') return { json: false, text: '' };
	try {
		return { json: true, value: JSON.parse(text) as unknown };
	} catch {
		return { json: false, text };
	}
}

function describeText(text: string, headers: Record<string, unknown>): string {
	const type = typeof headers['content-type'] === 'string' ? headers['content-type'] : 'unknown';
	const start = text.replace(/\s+/g, ' ').trim().slice(0, 80);
	return `content type ${type}${start ? `, starting "${start}"` : ''}`;
}

function jsonKind(value: unknown): string {
	if (value === null) return 'null';
	return `a ${typeof value}`;
}

/** Every string in the value with the secrets cut out, object keys included. */
function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (value !== null && typeof value === 'object') {
		const copy: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(value)) {
			copy[redact(key, secrets)] = redactValue(entry, secrets);
		}
		return copy;
	}
	return value;
}

/** A reply whose JSON body echoes a secret has it cut out before anything reads it. */
function withoutSecrets(reply: ApiReply, secrets: string[]): ApiReply {
	const text = JSON.stringify(reply.body) ?? '';
	const location = reply.headers.location;
	const echoed = (candidate: string) => secrets.some((secret) => candidate.includes(secret));
	if (!echoed(text) && !(typeof location === 'string' && echoed(location))) return reply;
	return {
		...reply,
		body: redactValue(reply.body, secrets),
		headers: redactValue(reply.headers, secrets) as Record<string, unknown>,
	};
}

/**
 * Sends one API request with the credential applied, waiting and retrying as the API asks.
 * Returns the reply's JSON body; every failure becomes a NodeApiError with the API's own words.
 * Hand-written because n8n's request helpers never retry on 429 and ignore Retry-After.
 */
export async function apiRequest(ctx: Context, request: ApiRequest): Promise<unknown> {
	return (await apiReply(ctx, request)).body;
}

/** apiRequest, with the reply's status and headers. */
export async function apiReply(ctx: Context, request: ApiRequest): Promise<ApiReply> {
	const gate = gateFor(ctx);
	await gate?.acquire();
	try {
		return await sendWithRetries(ctx, request, gate?.pacer);
	} finally {
		gate?.release();
	}
}

async function sendWithRetries(
	ctx: Context,
	request: ApiRequest,
	pacer?: Pacer,
): Promise<ApiReply> {
	const { baseUrl, secrets, schemeAssumed } = await credentialFor(ctx, request.itemIndex);
	const idempotent = request.uncertainOutcome === undefined;
	const { policy, itemIndex, what } = request;
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
	let waitedMs = 0;
	let attempt = 0;
	/** Waits before the next attempt if the policy still allows one; false when it does not. */
	const retryAllowed = (waitMs: number) =>
		attempt < policy.maxRetries && waitedMs + waitMs <= policy.maxWaitMs;
	const waitForRetry = async (waitMs: number) => {
		if (!retryAllowed(waitMs)) return false;
		waitedMs += waitMs;
		attempt++;
		await sleep(waitMs, signal);
		return true;
	};
	/** The "may or may not have happened" warning, for a change that may have reached the API. */
	const uncertain = request.uncertainOutcome ? ` ${request.uncertainOutcome}` : '';
	/** What to tell the user after an error status; undefined keeps the generic hint. */
	const advice = (reply: ApiReply, asked: number | undefined): string | undefined => {
		const status = reply.statusCode;
		if (status === 429) {
			const invalid = invalidWait(reply);
			const askedText =
				asked !== undefined
					? `it asked to wait ${seconds(asked)}`
					: invalid !== undefined
						? `it gave an invalid wait (${invalid})`
						: 'it did not say how long to wait';
			return `The API rate limit was hit and ${askedText}. Gave up after ${plural(attempt, 'retry', 'retries')} and ${seconds(waitedMs)} of waiting (limits: ${plural(policy.maxRetries, 'retry', 'retries')}, ${seconds(policy.maxWaitMs)}). ${rateLimitAdvice(ctx, request)}`;
		}
		const hint = request.hints?.[status];
		if (status < 500 || !uncertain) return hint;
		return `${hint ?? 'The API had a server error.'}${uncertain}`;
	};
	const fail = (message: string, description: string) =>
		transportError(ctx, `${what} failed: ${message}`, description, secrets, itemIndex);

	for (;;) {
		let reply: ApiReply;
		let body: Body;
		const sentAt = (await pacer?.turn(signal)) ?? 0;
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...request.options,
				// Set here, not in requestDefaults: n8n takes the host of a requestDefaults baseURL
				// into the credential's Allowed Domains, and the user's list should decide.
				baseURL: baseUrl,
				// A redirect would carry the key's headers to whatever host it names.
				disableFollowRedirect: true,
				json: true,
				// Parsed here, so that a JSON string is told apart from text that is not JSON.
				encoding: 'text',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as { statusCode: number; body: unknown; headers?: IDataObject };
			body = readBody(response.body);
			reply = withoutSecrets(
				{
					statusCode: response.statusCode,
					body: body.json ? body.value : body.text,
					headers: (response.headers ?? {}) as Record<string, unknown>,
				},
				secrets,
			);
		} catch (error) {
			const failure = describeFailure(error, {
				timeoutMs: request.options.timeout,
				hasRequestOptions: 'getExecuteData' in ctx,
				schemeAssumed,
			});
			const code = errorCode(error);
			const transient = idempotent && code !== undefined && TRANSIENT_CODES.has(code);
			if (transient && (await waitForRetry(backoffMs(attempt)))) continue;
			throw fail(
				failure.message,
				failure.description + (failure.mayHaveReachedApi ? uncertain : ''),
			);
		}

		const status = reply.statusCode;
		const asked = status === 429 ? requestedWaitMs(reply) : undefined;
		const retryable = status === 429 || (idempotent && TRANSIENT_STATUSES.has(status));
		const waitMs = asked ?? backoffMs(attempt);
		if (status === 429 && retryAllowed(waitMs)) pacer?.throttled(sentAt, waitMs);
		if (status >= 200 && status < 300) pacer?.succeeded();
		if (retryable && (await waitForRetry(waitMs))) continue;
		if (status >= 400) {
			throw httpError(ctx, reply, secrets, what, itemIndex, advice(reply, asked));
		}
		if (status < 200 || status >= 300) {
			const path = String(request.options.url ?? '');
			const redirect = describeRedirect(status, reply.headers.location, baseUrl + path, path);
			if (redirect) throw fail(redirect.message, redirect.description + uncertain);
			throw fail(
				`the Business CRM API answered with HTTP ${status}`,
				`Expected a 2xx reply. Check that the Base URL points at the API itself, not at a page that redirects.${uncertain}`,
			);
		}
		if (!body.json && body.text === '') {
			if (request.emptyBodyIsSuccess) return reply;
			throw fail(
				`the Business CRM API answered ${status} with an empty body`,
				`Expected a JSON reply. Check that the Base URL points at the API, not at a website or proxy page.${uncertain}`,
			);
		}
		if (!body.json) {
			throw fail(
				`the Business CRM API answered ${status} with a body that is not JSON`,
				`Expected JSON but got ${describeText(body.text, reply.headers)}. Check that the Base URL points at the API, not at a website or proxy page.${uncertain}`,
			);
		}
		if (reply.body === null || typeof reply.body !== 'object') {
			throw fail(
				`the Business CRM API answered ${status} with JSON that is ${jsonKind(reply.body)}, not an object or a list`,
				`Expected a JSON object or list, but the reply was ${JSON.stringify(reply.body).slice(0, 80)}. ${request.acceptedOutcome ?? `Check that the Base URL points at the API.${uncertain}`}`,
			);
		}
		return reply;
	}
}
