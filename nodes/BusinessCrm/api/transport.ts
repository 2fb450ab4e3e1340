import { plural, seconds } from '../values';
import type { Context } from '../context';
/**
 * Sends the node's API requests: the credential applied, retries as the API asks, every reply
 * cleaned of secrets and checked before anything reads it. Pacing is in pacing.ts, waits and
 * retry rules in retries.ts, redaction in redaction.ts.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { clock, deadline } from './clock';
import { checkCredential, crmIdentity, CREDENTIAL_TYPE, type CheckedCredential } from '../credential/credential';
import { httpError, inputError, transportError, type Reached } from '../errors/errors';
import { describeFailure, describeRedirect, errorCode } from './failures';
import { gateFor, type Pacer } from './pacing';
import { excerpt, withoutSecrets, type ApiReply } from '../errors/redaction';
import { requestSettings, runSignal, type RequestSettings } from './requestSettings';
import {
	backoffMs,
	requestedWait,
	TRANSIENT_CODES,
	TRANSIENT_STATUSES,
	type RequestedWait,
	type RetryPolicy,
} from './retries';


export interface ApiRequest {
	/** Says what the request was for, in errors ("Get business", "Create customer"). */
	what: string;
	method: IHttpRequestMethods;
	/** The path under the Base URL. */
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
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
 * What the user can change once the rate limit outlasted the retries, where the request came
 * from. `raise` names the one limit that stopped the retries, so the advice is the one that helps.
 */
function rateLimitAdvice(ctx: Context, request: ApiRequest, raise: string): string {
	if (!('getExecuteData' in ctx)) {
		return 'getActivationMode' in ctx
			? 'The next poll tries again.'
			: 'Wait a moment, then open the list again.';
	}
	const options = `${raise} under Options on the Parameters tab`;
	return request.listPage
		? `${options}.`
		: `${options}, or space the input items out on the node's Settings tab (Request Options › Batching).`;
}

/** The wait before the next retry: what the reply asked for, else the backoff. */
function waitMsFor(wait: RequestedWait, attempt: number): number {
	return wait && 'ms' in wait ? wait.ms : backoffMs(attempt);
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

/** Which CRM the item's credential points at (see crmIdentity). */
export async function crmOf(ctx: Context, itemIndex?: number): Promise<string> {
	const { baseUrl, organizationId } = await credentialFor(ctx, itemIndex);
	return crmIdentity(baseUrl, organizationId);
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

function describeText(text: string, headers: Record<string, unknown>, secrets: string[]): string {
	const type = typeof headers['content-type'] === 'string' ? headers['content-type'] : 'unknown';
	const start = excerpt(text, secrets);
	return `content type ${type}${start ? `, starting "${start}"` : ''}`;
}

function jsonKind(value: unknown): string {
	if (value === null) return 'null';
	return `a ${typeof value}`;
}

/** One attempt: the reply with every secret cut out and its body as read, or why it failed. */
type Attempt = { reply: ApiReply; body: Body } | { failed: unknown };

/**
 * One attempt, with the item's Request Options (or what the context allows) and a deadline for
 * the whole request.
 */
async function send(
	ctx: Context,
	request: ApiRequest,
	settings: RequestSettings,
	{ baseUrl, apiKey, organizationId, secrets }: CheckedCredential,
): Promise<Attempt> {
	// n8n's Timeout counts idle time only: a reply that trickles in would never end without this.
	const ends = deadline(settings.timeoutMs, runSignal(ctx));
	const options: IHttpRequestOptions = {
		method: request.method,
		url: request.url,
		qs: request.qs,
		body: request.body,
		// The credential's headers (its `authenticate`), as checked: sent through httpRequest, not
		// httpRequestWithAuthentication, because n8n-core 2.4x replaces the latter's abortSignal
		// with the execution's, which would drop the deadline.
		headers: {
			Accept: 'application/json',
			'Content-Type': 'application/json',
			'X-API-Key': apiKey,
			'X-Organization-ID': organizationId,
		},
		// Set here, not in requestDefaults: n8n takes the host of a requestDefaults baseURL into
		// the credential's Allowed Domains, and the user's list should decide.
		baseURL: baseUrl,
		timeout: settings.timeoutMs,
		proxy: settings.proxy,
		skipSslCertificateValidation: settings.skipSslCertificateValidation,
		abortSignal: ends.signal,
		// A redirect would carry the key's headers to whatever host it names.
		disableFollowRedirect: true,
		json: true,
		// Parsed here, so that a JSON string is told apart from text that is not JSON.
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	const outcome = await Promise.race([
		ctx.helpers.httpRequest(options),
		// Where an n8n version does not pass abortSignal on, the node still moves on.
		ends.reached,
	]).then(
		(response: { statusCode: number; body: unknown; headers?: IDataObject }) => ({ response }),
		(error: unknown) => ({ error }),
	);
	ends.clear();
	if ('error' in outcome) {
		// What describeFailure reads of a timeout, whatever the client made of the abort.
		return { failed: ends.passed() ? { code: 'ETIMEDOUT', cause: outcome.error } : outcome.error };
	}
	const { response } = outcome;
	const body = readBody(response.body);
	const reply = withoutSecrets(
		{
			statusCode: response.statusCode,
			body: body.json ? body.value : body.text,
			headers: (response.headers ?? {}) as Record<string, unknown>,
		},
		secrets,
		typeof response.body === 'string' ? response.body : undefined,
	);
	return { reply, body };
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
	const credential = await credentialFor(ctx, request.itemIndex);
	const { secrets, schemeAssumed } = credential;
	const settings = requestSettings(ctx, request.itemIndex);
	const idempotent = request.uncertainOutcome === undefined;
	const { policy, itemIndex, what } = request;
	const signal = runSignal(ctx);
	let waitedMs = 0;
	let attempt = 0;
	/** Waits before the next attempt if the policy still allows one; false when it does not. */
	const retryAllowed = (waitMs: number) =>
		attempt < policy.maxRetries && waitedMs + waitMs <= policy.maxWaitMs;
	const waitForRetry = async (waitMs: number) => {
		if (!retryAllowed(waitMs)) return false;
		waitedMs += waitMs;
		attempt++;
		await clock.sleep(waitMs, signal);
		return true;
	};
	/** The "may or may not have happened" warning, for a change that may have reached the API. */
	const uncertain = request.uncertainOutcome ? ` ${request.uncertainOutcome}` : '';
	/** What to tell the user after an error status; undefined keeps the generic hint. */
	const advice = (reply: ApiReply): string | undefined => {
		const status = reply.statusCode;
		if (status === 429) {
			const wait = requestedWait(reply);
			const askedText =
				wait === undefined
					? 'it did not say how long to wait'
					: 'ms' in wait
						? `it asked to wait ${seconds(wait.ms)}`
						: `it gave an invalid wait (${wait.invalid})`;
			// The retries ran out, or the next wait would pass Max Total Wait: name the one that stopped.
			const raise =
				attempt >= policy.maxRetries
					? 'Raise Max Retries'
					: `Raise Max Total Wait to at least ${Math.ceil((waitedMs + waitMsFor(wait, attempt)) / 1000)} s`;
			return `The API rate limit was hit and ${askedText}. Gave up after ${plural(attempt, 'retry', 'retries')} and ${seconds(waitedMs)} of waiting (limits: ${plural(policy.maxRetries, 'retry', 'retries')}, ${seconds(policy.maxWaitMs)}). ${rateLimitAdvice(ctx, request, raise)}`;
		}
		const hint = request.hints?.[status];
		if (status < 500 || !uncertain) return hint;
		return `${hint ?? 'The API had a server error.'}${uncertain}`;
	};
	const fail = (message: string, description: string, reached: Reached = 'maybe') =>
		transportError(ctx, `${what} failed: ${message}`, description, secrets, itemIndex, reached);

	for (;;) {
		const sentAt = (await pacer?.turn(signal)) ?? 0;
		const sent = await send(ctx, request, settings, credential);
		if ('failed' in sent) {
			const error = sent.failed;
			const failure = describeFailure(error, {
				timeoutMs: settings.timeoutMs,
				hasRequestOptions: 'getExecuteData' in ctx,
				schemeAssumed,
			});
			const code = errorCode(error);
			const transient = idempotent && code !== undefined && TRANSIENT_CODES.has(code);
			if (transient && (await waitForRetry(backoffMs(attempt)))) continue;
			throw fail(
				failure.message,
				failure.description + (failure.mayHaveReachedApi ? uncertain : ''),
				failure.mayHaveReachedApi ? 'maybe' : 'no',
			);
		}
		const { reply, body } = sent;

		const status = reply.statusCode;
		const wait = status === 429 ? requestedWait(reply) : undefined;
		const retryable = status === 429 || (idempotent && TRANSIENT_STATUSES.has(status));
		const waitMs = waitMsFor(wait, attempt);
		if (status === 429 && retryAllowed(waitMs)) pacer?.throttled(sentAt, waitMs);
		if (status >= 200 && status < 300) pacer?.succeeded();
		if (retryable && (await waitForRetry(waitMs))) continue;
		if (status >= 400) {
			throw httpError(ctx, reply, secrets, what, itemIndex, advice(reply));
		}
		return usableReply(reply, body, request, credential, fail, uncertain);
	}
}

/** The reply of a request that did not fail with an error status, if the node can read it. */
function usableReply(
	reply: ApiReply,
	body: Body,
	request: ApiRequest,
	{ baseUrl, secrets }: CheckedCredential,
	fail: (message: string, description: string, reached?: Reached) => Error,
	uncertain: string,
): ApiReply {
	const status = reply.statusCode;
	if (status < 200 || status >= 300) {
		const path = request.url;
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
			`Expected JSON but got ${describeText(reply.body as string, reply.headers, secrets)}. Check that the Base URL points at the API, not at a website or proxy page.${uncertain}`,
		);
	}
	if (reply.body === null || typeof reply.body !== 'object') {
		throw fail(
			`the Business CRM API answered ${status} with JSON that is ${jsonKind(reply.body)}, not an object or a list`,
			`Expected a JSON object or list, but the reply was ${excerpt(JSON.stringify(reply.body), secrets)}. ${request.acceptedOutcome ?? `Check that the Base URL points at the API.${uncertain}`}`,
			request.acceptedOutcome ? 'yes' : 'maybe',
		);
	}
	return reply;
}
