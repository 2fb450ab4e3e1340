/** A reply as the node reads it: its body parsed, and whether the node can use it. */
import { jsonParse } from 'n8n-workflow';
import type { CheckedCredential } from '../credential/credential';
import { API_ANSWERED } from '../errors/errors';
import type { ErrorType, Reached } from '../errors/errorTypes';
import { excerpt, type ApiReply } from '../errors/redaction';
import { describeRedirect } from './failures';
// Types only: transport.ts imports this file's functions, not the other way round.
import type { ApiRequest } from './transport';

/** What jsonParse gives for text that is not JSON: no JSON value is this symbol. */
const NOT_JSON = Symbol('not JSON');

/** After "answered <status>": a 2xx without a body where one was needed. */
export const EMPTY_REPLY = 'with an empty body';
/** After "answered <status>": a 2xx whose body is not JSON. */
export const NOT_JSON_REPLY = 'with a body that is not JSON';

export const NOT_2XX_HELP =
	'Expected a 2xx reply. Check that the Base URL points at the API itself, not at a page that redirects.';
export const EXPECTED_JSON = 'Expected a JSON reply.';
/** After what a reply that is not JSON held. */
export const NOT_A_WEBSITE =
	'Check that the Base URL points at the API, not at a website or proxy page.';
export const POINTS_AT_API = 'Check that the Base URL points at the API.';

/** A reply body as read: JSON (any value), text that is not JSON, or nothing. */
export type Body = { json: true; value: unknown } | { json: false; text: string };

export function readBody(raw: unknown): Body {
	const text = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : String(raw);
	if (text.trim() === '') return { json: false, text: '' };
	const value = jsonParse<unknown>(text, { fallbackValue: NOT_JSON });
	return value === NOT_JSON ? { json: false, text } : { json: true, value };
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

/** The reply of a request that did not fail with an error status, if the node can read it. */
export function usableReply(
	reply: ApiReply,
	body: Body,
	request: Pick<ApiRequest, 'url' | 'emptyBodyIsSuccess' | 'acceptedOutcome'>,
	{ baseUrl, secrets }: CheckedCredential,
	fail: (message: string, description: string, reached?: Reached, cause?: ErrorType) => Error,
	uncertain: string,
): ApiReply {
	const status = reply.statusCode;
	if (status < 200 || status >= 300) {
		const path = request.url;
		const redirect = describeRedirect(status, reply.headers.location, baseUrl + path, path);
		// The Base URL points at something that is not the API: only a change of setup helps.
		if (redirect) {
			throw fail(redirect.message, redirect.description + uncertain, 'maybe', 'configuration');
		}
		throw fail(
			`${API_ANSWERED} with HTTP ${status}`,
			`${NOT_2XX_HELP}${uncertain}`,
			'maybe',
			'configuration',
		);
	}
	if (!body.json && body.text === '') {
		if (request.emptyBodyIsSuccess) return reply;
		throw fail(
			`${API_ANSWERED} ${status} ${EMPTY_REPLY}`,
			`${EXPECTED_JSON} ${NOT_A_WEBSITE}${uncertain}`,
			'maybe',
			'configuration',
		);
	}
	if (!body.json) {
		throw fail(
			`${API_ANSWERED} ${status} ${NOT_JSON_REPLY}`,
			`Expected JSON but got ${describeText(reply.body as string, reply.headers, secrets)}. ${NOT_A_WEBSITE}${uncertain}`,
			'maybe',
			'configuration',
		);
	}
	if (reply.body === null || typeof reply.body !== 'object') {
		throw fail(
			`${API_ANSWERED} ${status} with JSON that is ${jsonKind(reply.body)}, not an object or a list`,
			`Expected a JSON object or list, but the reply was ${excerpt(JSON.stringify(reply.body), secrets)}. ${request.acceptedOutcome ?? `${POINTS_AT_API}${uncertain}`}`,
			request.acceptedOutcome ? 'yes' : 'maybe',
			'unexpectedReply',
		);
	}
	return reply;
}
