import { sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { parseBaseUrl } from './baseUrl';
import { httpError, inputError, transportError, type ApiReply } from './errors';

export const CREDENTIAL_TYPE = 'businessCrmApi';

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
}

/**
 * Holds back the requests of one node run. n8n starts every input item's request at once, so
 * 1,000 items would be 1,000 parallel requests and a wall of 429s; a request keeps its slot
 * while it waits out a 429, which makes the others wait too.
 */
export const MAX_PARALLEL_REQUESTS = 10;

class RequestGate {
	private active = 0;
	private readonly waiting: Array<() => void> = [];

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
		if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
		const date = Date.parse(header);
		if (Number.isFinite(date)) return Math.max(0, date - now);
	}
	return undefined;
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

function hasControlCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || code === 0x7f) return true;
	}
	return false;
}

/**
 * credentialSecrets: checks the credential before anything is sent, and returns the API key as
 * it is sent, so it can be kept out of every message. A line break inside either would make
 * an invalid header, and a Base URL the node cannot use would fail with an unhelpful message.
 */
async function readSecrets(ctx: Context, itemIndex?: number): Promise<string[]> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const { problem } = parseBaseUrl(credentials.baseUrl);
	if (problem !== undefined) {
		throw inputError(
			ctx,
			problem.replace('The Base URL', 'The Base URL in the Business CRM credential'),
			'Open the credential and correct the Base URL.',
			itemIndex,
		);
	}
	const fields: Array<[string, unknown]> = [
		['API Key', credentials.apiKey],
		['Organization ID', credentials.organizationId],
	];
	const [apiKey] = fields.map(([label, value]) => {
		const text = String(value ?? '').trim();
		if (text === '') {
			throw inputError(
				ctx,
				`The ${label} in the Business CRM credential is empty`,
				`Open the credential and enter the ${label}.`,
				itemIndex,
			);
		}
		if (hasControlCharacter(text)) {
			throw inputError(
				ctx,
				`The ${label} in the Business CRM credential contains a line break or another control character`,
				`Open the credential and paste the ${label} again as a single line.`,
				itemIndex,
			);
		}
		return text;
	});
	// Only the key is secret; the organization ID stays readable, since a 403 asks to check it.
	return [apiKey];
}

// One read per item, not per page: in n8n each getCredentials is a database read and decryption.
const secretsByContext = new WeakMap<object, Promise<string[]>>();

/** credentialSecrets for this item's context, read once. */
export async function credentialSecrets(ctx: Context, itemIndex?: number): Promise<string[]> {
	let secrets = secretsByContext.get(ctx);
	if (!secrets) {
		secrets = readSecrets(ctx, itemIndex);
		secretsByContext.set(ctx, secrets);
	}
	return await secrets;
}

/**
 * Makes the next request of this context read the credential again. n8n keeps one poll context
 * for as long as a workflow is active, across edits of the credential, so a trigger calls this
 * at the start of every poll.
 */
export function forgetCredentialSecrets(ctx: Context): void {
	secretsByContext.delete(ctx);
}

function errorCode(error: unknown): string | undefined {
	// httpRequestWithAuthentication wraps the transport error; its code sits on the cause.
	const seen = new Set<unknown>();
	let current = error as { code?: unknown; cause?: unknown } | undefined;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		if (typeof current.code === 'string' && /^E[A-Z_]+$/.test(current.code)) return current.code;
		current = current.cause as typeof current;
	}
	return undefined;
}

function describeFailure(code: string | undefined, timeoutMs: number | undefined) {
	switch (code) {
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
			return {
				message: timeoutMs ? `no answer within ${seconds(timeoutMs)}` : 'no answer in time',
				description:
					'The Business CRM API did not answer in time. Try again later, or raise the timeout under Request Options › Timeout.',
			};
		case 'ECONNREFUSED':
			return {
				message: 'the server refused the connection',
				description:
					'Nothing answers at the Base URL of the Business CRM credential. Check the address and port, and that the API is up.',
			};
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return {
				message: 'the host name could not be resolved',
				description: 'Check the Base URL in the Business CRM credential for typos.',
			};
		case 'ECONNRESET':
		case 'EPIPE':
			return {
				message: 'the connection was closed before the reply arrived',
				description: 'The API or a proxy dropped the connection. Try again later.',
			};
		default:
			return {
				message: 'the request could not be completed',
				description: 'Check the Base URL in the Business CRM credential and your network.',
			};
	}
}

function isJsonReply(body: unknown): boolean {
	return body !== null && typeof body === 'object';
}

function describeBody(body: unknown, headers: Record<string, unknown>): string {
	const type = typeof headers['content-type'] === 'string' ? headers['content-type'] : 'unknown';
	const text = typeof body === 'string' ? body : String(body);
	const start = text.replace(/\s+/g, ' ').trim().slice(0, 80);
	return `content type ${type}${start ? `, starting "${start}"` : ''}`;
}

/**
 * Sends one API request with the credential applied, waiting and retrying as the API asks.
 * Returns the reply's JSON body; every failure becomes a NodeApiError with the API's own words.
 * Hand-written because n8n's request helpers never retry on 429 and ignore Retry-After.
 */
export async function apiRequest(ctx: Context, request: ApiRequest): Promise<unknown> {
	const gate = gateFor(ctx);
	await gate?.acquire();
	try {
		return await sendWithRetries(ctx, request);
	} finally {
		gate?.release();
	}
}

async function sendWithRetries(ctx: Context, request: ApiRequest): Promise<unknown> {
	const secrets = await credentialSecrets(ctx, request.itemIndex);
	const idempotent = request.uncertainOutcome === undefined;
	const uncertain = request.uncertainOutcome ? ` ${request.uncertainOutcome}` : '';
	const { policy, itemIndex, what } = request;
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
	let waitedMs = 0;
	let attempt = 0;
	/** Waits before the next attempt if the policy still allows one; false when it does not. */
	const waitForRetry = async (waitMs: number) => {
		if (attempt >= policy.maxRetries || waitedMs + waitMs > policy.maxWaitMs) return false;
		waitedMs += waitMs;
		attempt++;
		await sleep(waitMs, signal);
		return true;
	};
	/** What to tell the user after an error status; undefined keeps the generic hint. */
	const advice = (status: number, asked: number | undefined): string | undefined => {
		if (status === 429) {
			const askedText =
				asked === undefined
					? 'it did not say how long to wait'
					: `it asked to wait ${seconds(asked)}`;
			return `The API rate limit was hit and ${askedText}. Gave up after ${plural(attempt, 'retry', 'retries')} and ${seconds(waitedMs)} of waiting (limits: ${plural(policy.maxRetries, 'retry', 'retries')}, ${seconds(policy.maxWaitMs)}). Raise Options › Max Retries or Max Total Wait, or spread the requests out with Request Options › Batching.`;
		}
		const hint = request.hints?.[status];
		if (status < 500 || !uncertain) return hint;
		return `${hint ?? 'The API had a server error.'}${uncertain}`;
	};
	for (;;) {
		let reply: ApiReply;
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
				...request.options,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as { statusCode: number; body: unknown; headers?: IDataObject };
			reply = {
				statusCode: response.statusCode,
				body: response.body,
				headers: (response.headers ?? {}) as Record<string, unknown>,
			};
		} catch (error) {
			const code = errorCode(error);
			const failure = describeFailure(code, request.options.timeout);
			const transient = idempotent && code !== undefined && TRANSIENT_CODES.has(code);
			if (transient && (await waitForRetry(backoffMs(attempt)))) continue;
			throw transportError(
				ctx,
				`${what} failed: ${failure.message}`,
				failure.description + uncertain,
				secrets,
				itemIndex,
			);
		}

		const status = reply.statusCode;
		const asked = status === 429 ? requestedWaitMs(reply) : undefined;
		const retryable = status === 429 || (idempotent && TRANSIENT_STATUSES.has(status));
		if (retryable && (await waitForRetry(asked ?? backoffMs(attempt)))) continue;
		if (status >= 400) {
			throw httpError(ctx, reply, secrets, what, itemIndex, advice(status, asked));
		}
		if (status < 200 || status >= 300) {
			throw transportError(
				ctx,
				`${what} failed: the Business CRM API answered with HTTP ${status}`,
				'Expected a 2xx reply. Check that the Base URL points at the API itself, not at a page that redirects.',
				secrets,
				itemIndex,
			);
		}
		if (!isJsonReply(reply.body)) {
			const empty = reply.body === undefined || reply.body === null || reply.body === '';
			throw transportError(
				ctx,
				empty
					? `${what} failed: the Business CRM API answered ${status} with an empty body`
					: `${what} failed: the Business CRM API answered ${status} with a body that is not JSON`,
				`${empty ? 'Expected a JSON reply.' : `Expected JSON but got ${describeBody(reply.body, reply.headers)}.`} Check that the Base URL points at the API, not at a website or proxy page.${uncertain}`,
				secrets,
				itemIndex,
			);
		}
		return reply.body;
	}
}
