import { NodeApiError, NodeOperationError, type JsonObject } from 'n8n-workflow';
import type { Context } from '../context';
import { isObject } from '../values';
import { redact, type ApiReply } from './redaction';
import { typed, typeOfStatus, type ErrorType, type Reached } from './errorTypes';

export const KEY_HELP =
	'API keys are managed by an organization administrator in the dashboard (Settings › Organization › API Keys).';

/** How every message about an HTTP reply the node could not use begins, after "<what> failed: ". */
export const API_ANSWERED = 'the Business CRM API answered';

/** The hint after a 5xx that has no hint of its own. */
export const SERVER_ERROR_HINT = 'The API had a server error.';

/** What a user should check for each status, after the API's own words. */
export const STATUS_HINTS: Record<number, string> = {
	400: 'The API refused the request as invalid. Check the values sent by this node.',
	401: `Check the API Key in the Business CRM credential: it is missing, mistyped, revoked or expired. ${KEY_HELP}`,
	403: `The API key is valid but not allowed to do this. Check the Organization ID in the credential (it must be the organization the key belongs to) and the key's permissions. ${KEY_HELP}`,
	404: 'The API did not find what was asked for.',
};

/** The API's `message` and `err` (spec section 7), whatever else the body holds. */
export function apiWords(body: unknown): { message?: string; err?: string } {
	if (!isObject(body)) return {};
	const record = body;
	const text = (value: unknown) =>
		typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
	return { message: text(record.message), err: text(record.err) };
}

/**
 * Builds the error for a reply with an HTTP error status. n8n's NodeApiError would replace
 * the API's words with a generic title per status, so message and description are set here.
 */
export function httpError(
	ctx: Context,
	reply: ApiReply,
	secrets: string[],
	what: string,
	itemIndex?: number,
	extraHint?: string,
): NodeApiError {
	const { message, err } = apiWords(reply.body);
	const status = reply.statusCode;
	const said = [message, err].filter(Boolean).join(': ');
	const title = `${what} failed: ${API_ANSWERED} ${status}${said ? ` "${said}"` : ''}`;
	const hint = extraHint ?? STATUS_HINTS[status] ?? (status >= 500 ? SERVER_ERROR_HINT : '');
	const error = new NodeApiError(
		ctx.getNode(),
		// Kept on the error and stored with the execution, so redacted like the message.
		{
			message: message === undefined ? null : redact(message, secrets),
			err: err === undefined ? null : redact(err, secrets),
			status,
		} as JsonObject,
		{
			message: redact(title, secrets),
			description: redact(hint, secrets),
			httpCode: String(status),
			itemIndex,
		},
	);
	return typed(error, typeOfStatus(status));
}

/** Whether a failed request's error says it never reached the API (refused before sending). */
export function neverReachedApi(error: NodeApiError): boolean {
	return error.context.reached === 'no';
}

/**
 * An error without an HTTP status: the connection failed, timed out or the reply was unusable.
 * Its kind is the caller's to say: only the caller knows whether it was a write.
 */
export function transportError(
	ctx: Context,
	message: string,
	description: string,
	secrets: string[],
	itemIndex?: number,
	reached: Reached = 'maybe',
	type: ErrorType = 'unavailable',
): NodeApiError {
	const error = new NodeApiError(
		ctx.getNode(),
		{ message: redact(message, secrets) } as JsonObject,
		{
			message: redact(message, secrets),
			description: redact(description, secrets),
			itemIndex,
		},
	);
	error.context.reached = reached;
	return typed(error, type);
}

/** What an input error is about, for the advice a model gets (errors/agentAdvice.ts). */
export interface InputProblem {
	type?: ErrorType;
	/** The node parameter whose value was wrong or missing (its path, as getNodeParameter takes). */
	parameter?: string;
}

/** A setting (credential, Settings tab) that stops every call until a person changes it. */
export const SETUP: InputProblem = { type: 'configuration' };

/** A problem with what the user entered, found before anything is sent. */
export function inputError(
	ctx: Context,
	message: string,
	description: string,
	itemIndex?: number,
	problem: InputProblem = {},
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, {
		description,
		itemIndex,
	});
	if (problem.parameter !== undefined) error.context.parameter = problem.parameter;
	return typed(error, problem.type ?? 'invalidInput');
}

/** A request its caller withdrew before it was sent (ApiRequest.withdrawIf): nothing reached the API. */
export class RequestWithdrawn extends Error {}
