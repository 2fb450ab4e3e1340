/**
 * Sends the node's API requests: the credential applied, retries as the API asks, every reply
 * cleaned of secrets and checked before anything reads it. Pacing is in pacing.ts, waits and
 * retry rules in retries.ts, the credential in requestCredential.ts, reply checks in reply.ts.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import type { Context } from '../context';
import type { CheckedCredential } from '../credential/credential';
import { httpError, RequestWithdrawn, SERVER_ERROR_HINT, transportError } from '../errors/errors';
import { typed, typeOfFailure, type ErrorType, type Reached } from '../errors/errorTypes';
import { withoutSecrets, type ApiReply } from '../errors/redaction';
import { clock, deadline } from './clock';
import { describeFailure, errorCode } from './failures';
import { gateFor, type Pacer } from './pacing';
import { rateLimitMessage } from './rateLimit';
import { readBody, usableReply, type Body } from './reply';
import { credentialFor } from './requestCredential';
import { requestSettings, runSignal, type RequestSettings } from './requestSettings';
import {
	backoffMs,
	nextWaitMs,
	requestedWait,
	TRANSIENT_CODES,
	TRANSIENT_STATUSES,
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
	/**
	 * Asked just before each attempt leaves: true withdraws the request unsent (RequestWithdrawn),
	 * e.g. a Create queued behind a row whose failure stopped the run.
	 */
	withdrawIf?: () => boolean;
	/** Told of the request's failure before the next request of the run may leave. */
	failed?: (error: unknown) => void;
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
		const sending = sendWithRetries(ctx, request, gate?.pacer);
		// Heard before the turn passes on, so that a caller that stops on a failure withdraws the next.
		if (request.failed) sending.catch(request.failed);
		return await sending;
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
			return rateLimitMessage(ctx, reply, policy, { attempt, waitedMs }, request.listPage === true);
		}
		const hint = request.hints?.[status];
		if (status < 500 || !uncertain) return hint;
		return `${hint ?? SERVER_ERROR_HINT}${uncertain}`;
	};
	const fail = (message: string, text: string, reached: Reached = 'maybe', cause?: ErrorType) => {
		const type = typeOfFailure(reached, !idempotent, cause ?? 'unavailable');
		return transportError(
			ctx,
			`${what} failed: ${message}`,
			text,
			secrets,
			itemIndex,
			reached,
			type,
		);
	};

	for (;;) {
		const sentAt = (await pacer?.turn(signal)) ?? 0;
		if (request.withdrawIf?.()) throw new RequestWithdrawn();
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
				failure.setup ? 'configuration' : 'unavailable',
			);
		}
		const { reply, body } = sent;

		const status = reply.statusCode;
		const wait = status === 429 ? requestedWait(reply) : undefined;
		const retryable = status === 429 || (idempotent && TRANSIENT_STATUSES.has(status));
		const waitMs = nextWaitMs(wait, attempt);
		if (status === 429 && retryAllowed(waitMs)) pacer?.throttled(sentAt, waitMs);
		if (status >= 200 && status < 300) pacer?.succeeded();
		if (retryable && (await waitForRetry(waitMs))) continue;
		if (status >= 400) {
			const error = httpError(ctx, reply, secrets, what, itemIndex, advice(reply));
			// A 5xx may have changed something: a write's outcome is then unknown, as after a timeout.
			if (status >= 500) typed(error, typeOfFailure('maybe', !idempotent, 'unavailable'));
			// What a caller that cannot read the advice (a model) should wait before trying again.
			if (status === 429) error.context.retryAfterSeconds = Math.ceil(waitMs / 1000);
			throw error;
		}
		return usableReply(reply, body, request, credential, fail, uncertain);
	}
}
