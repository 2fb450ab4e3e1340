import { seconds } from '../values';

/** What a failed request tells the user, and whether it may have reached the API. */
export interface Failure {
	message: string;
	description: string;
	/** False when nothing can have reached the API (refused, unresolvable, blocked by n8n). */
	mayHaveReachedApi: boolean;
}

/** Where a request went, for the advice: timeouts can be raised only in the node's options. */
export interface FailureContext {
	timeoutMs?: number;
	/** Whether the node's Settings tab has Request Options (Timeout, Ignore SSL Issues) here. */
	hasRequestOptions: boolean;
	/** True when the Base URL was typed without a scheme and https:// was assumed. */
	schemeAssumed?: boolean;
}

interface Cause {
	code?: unknown;
	name?: unknown;
	message?: unknown;
	cause?: unknown;
}

/** Every error on the cause chain: n8n wraps the transport error, sometimes twice. */
function causes(error: unknown): Cause[] {
	const chain: Cause[] = [];
	let current = error as Cause | undefined;
	while (current && typeof current === 'object' && !chain.includes(current)) {
		chain.push(current);
		current = current.cause as Cause | undefined;
	}
	return chain;
}

/** The first Node.js or OpenSSL error code on the chain (ECONNREFUSED, CERT_HAS_EXPIRED, …). */
export function errorCode(error: unknown): string | undefined {
	for (const cause of causes(error)) {
		if (typeof cause.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(cause.code)) return cause.code;
	}
	return undefined;
}

/** Certificate problems, in the words a user can act on. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
	DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
	SELF_SIGNED_CERT_IN_CHAIN: 'it is signed by a self-signed certificate',
	CERT_HAS_EXPIRED: 'it has expired',
	CERT_NOT_YET_VALID: 'it is not valid yet',
	ERR_TLS_CERT_ALTNAME_INVALID: 'it is made out to another host name',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is not signed by a trusted authority',
	UNABLE_TO_GET_ISSUER_CERT: 'it is not signed by a trusted authority',
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is not signed by a trusted authority',
	CERT_UNTRUSTED: 'it is not trusted',
	CERT_REVOKED: 'it has been revoked',
	CERT_SIGNATURE_FAILURE: 'its signature is invalid',
};

const SSRF_ERRORS = new Set(['SsrfBlockedIpError', 'SsrfBlockedHostnameError']);

function n8nRefusal(error: unknown): Failure | undefined {
	for (const cause of causes(error)) {
		const text = typeof cause.message === 'string' ? cause.message : '';
		if (typeof cause.name === 'string' && SSRF_ERRORS.has(cause.name)) {
			return {
				message: `n8n blocked it: ${text.charAt(0).toLowerCase()}${text.slice(1)}`,
				description:
					"n8n's SSRF protection keeps nodes away from private and internal addresses. Ask your n8n administrator to allow the Base URL's host (N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES).",
				mayHaveReachedApi: false,
			};
		}
		if (text.startsWith('Domain not allowed')) {
			return {
				message: "the Base URL's host is not among the credential's allowed domains",
				description: `n8n says: ${text}. Add the host to Allowed Domains in the Business CRM credential, or set its Allowed HTTP Request Domains to All.`,
				mayHaveReachedApi: false,
			};
		}
	}
	return undefined;
}

/**
 * A TLS handshake with a server that answered in something other than TLS, usually plain HTTP
 * ("wrong version number" from OpenSSL).
 */
function notTls(error: unknown, code: string | undefined): boolean {
	if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER') return true;
	return causes(error).some(
		(cause) => typeof cause.message === 'string' && /wrong version number/i.test(cause.message),
	);
}

/** Describes a request that failed without an HTTP reply. */
export function describeFailure(error: unknown, context: FailureContext): Failure {
	const refused = n8nRefusal(error);
	if (refused) return refused;
	const code = errorCode(error);
	const certificate = code === undefined ? undefined : CERTIFICATE_PROBLEMS[code];
	if (certificate !== undefined) {
		return {
			message: `the TLS certificate of the API was not accepted: ${certificate} (${code})`,
			description: context.hasRequestOptions
				? "Fix the certificate on the server, or, if you trust this server, turn on Ignore SSL Issues on this node's Settings tab (Request Options › Ignore SSL Issues)."
				: "Fix the certificate on the server. Until then, enter the business By ID and turn on Ignore SSL Issues on the node's Settings tab (Request Options › Ignore SSL Issues).",
			mayHaveReachedApi: false,
		};
	}
	if (notTls(error, code)) {
		return context.schemeAssumed
			? {
					message: 'the server at that address does not speak HTTPS',
					description:
						'No scheme was typed, so https:// was used, and the server at that address does not speak HTTPS. If it is a plain-HTTP address, type http:// in front of the Base URL in the Business CRM credential.',
					mayHaveReachedApi: false,
				}
			: {
					message: `the TLS handshake failed (${code ?? 'wrong version number'})`,
					description:
						'The server at the Base URL does not speak HTTPS on that address and port. Check the scheme and port of the Base URL in the Business CRM credential.',
					mayHaveReachedApi: false,
				};
	}
	switch (code) {
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
			return {
				message: context.timeoutMs
					? `no answer within ${seconds(context.timeoutMs)}`
					: 'no answer in time',
				description: context.hasRequestOptions
					? "The Business CRM API did not answer in time. Try again later, or raise the timeout on this node's Settings tab (Request Options › Timeout)."
					: `The Business CRM API did not answer within ${context.timeoutMs ? seconds(context.timeoutMs) : 'the time allowed'}. Check that the API is up, then try again.`,
				mayHaveReachedApi: true,
			};
		case 'ECONNREFUSED':
			return {
				message: 'the server refused the connection',
				description:
					'Nothing answers at the Base URL of the Business CRM credential. Check the address and port, and that the API is up.',
				mayHaveReachedApi: false,
			};
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return {
				message: 'the host name could not be resolved',
				description: 'Check the Base URL in the Business CRM credential for typos.',
				mayHaveReachedApi: false,
			};
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return {
				message: 'the host could not be reached',
				description: 'Check the Base URL in the Business CRM credential and your network.',
				mayHaveReachedApi: false,
			};
		case 'ECONNRESET':
		case 'EPIPE':
			return {
				message: 'the connection was closed before the reply arrived',
				description: 'The API or a proxy dropped the connection. Try again later.',
				mayHaveReachedApi: true,
			};
		default:
			return {
				message: 'the request could not be completed',
				description: 'Check the Base URL in the Business CRM credential and your network.',
				mayHaveReachedApi: true,
			};
	}
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A redirect the node did not follow: where it pointed (scheme, host and path only, never a
 * password or query) and the Base URL that would reach it directly.
 */
export function describeRedirect(
	status: number,
	location: unknown,
	requestUrl: string,
	requestPath: string,
): { message: string; description: string } | undefined {
	if (!REDIRECT_STATUSES.has(status) || typeof location !== 'string' || location.trim() === '') {
		return undefined;
	}
	let target: URL;
	try {
		target = new URL(location.trim(), requestUrl);
	} catch {
		return {
			message: `the Business CRM API answered ${status}, redirecting to an address that is not a URL`,
			description:
				'The node does not follow redirects, so the API key never goes to an address you did not enter. Check the Base URL in the Business CRM credential.',
		};
	}
	const shown = `${target.protocol}//${target.host}${target.pathname}`;
	const prefix = target.pathname.endsWith(requestPath)
		? target.pathname.slice(0, target.pathname.length - requestPath.length).replace(/\/+$/, '')
		: undefined;
	const baseUrl = prefix === undefined ? undefined : `${target.protocol}//${target.host}${prefix}`;
	return {
		message: `the Business CRM API answered ${status}, redirecting to ${shown}`,
		description: `The node does not follow redirects, so the API key never goes to an address you did not enter. ${
			baseUrl
				? `If the API has moved there, put ${baseUrl} into the Base URL of the Business CRM credential.`
				: 'If the API has moved there, put its new address into the Base URL of the Business CRM credential.'
		}`,
	};
}
