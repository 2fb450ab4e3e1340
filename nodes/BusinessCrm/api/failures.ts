import { seconds } from '../values';

/** What a failed request tells the user, and whether it may have reached the API. */
export interface Failure {
	message: string;
	description: string;
	/** False when nothing can have reached the API (refused, unresolvable, blocked by n8n). */
	mayHaveReachedApi: boolean;
	/** True when only a change of setup (Base URL, certificate, allowed hosts) can help. */
	setup?: true;
}

/** Where a request went, for the advice: timeouts can be raised only in the node's options. */
export interface FailureContext {
	timeoutMs?: number;
	/** Whether the node's Settings tab has Request Options (Timeout, Ignore SSL Issues) here. */
	hasRequestOptions: boolean;
	/** True when the Base URL was typed without a scheme and https:// was assumed. */
	schemeAssumed?: boolean;
}

type Cause = { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };

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

export const SSRF_HELP =
	"n8n's SSRF protection keeps nodes away from private and internal addresses. Ask your n8n administrator to allow the Base URL's host (N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES).";
export const NOT_ALLOWED_DOMAIN =
	"the Base URL's host is not among the credential's allowed domains";
/** After "n8n says: <its words>.". */
export const ALLOW_DOMAIN_HELP =
	'Add the host to Allowed Domains in the Business CRM credential, or set its Allowed HTTP Request Domains to All.';

function n8nRefusal(error: unknown): Failure | undefined {
	for (const cause of causes(error)) {
		const text = typeof cause.message === 'string' ? cause.message : '';
		if (typeof cause.name === 'string' && SSRF_ERRORS.has(cause.name)) {
			return {
				message: `n8n blocked it: ${text.charAt(0).toLowerCase()}${text.slice(1)}`,
				description: SSRF_HELP,
				mayHaveReachedApi: false,
				setup: true,
			};
		}
		if (text.startsWith('Domain not allowed')) {
			return {
				message: NOT_ALLOWED_DOMAIN,
				description: `n8n says: ${text}. ${ALLOW_DOMAIN_HELP}`,
				mayHaveReachedApi: false,
				setup: true,
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

/** Before ": <what is wrong> (<code>)". */
export const CERTIFICATE_REFUSED = 'the TLS certificate of the API was not accepted';
export const CERTIFICATE_HELP =
	"Fix the certificate on the server, or, if you trust this server, turn on Ignore SSL Issues on this node's Settings tab (Request Options › Ignore SSL Issues).";
/** Where the node has no Request Options: the business list search. */
export const CERTIFICATE_HELP_BY_ID =
	"Fix the certificate on the server. Until then, enter the business By ID and turn on Ignore SSL Issues on the node's Settings tab (Request Options › Ignore SSL Issues).";
export const NO_HTTPS = 'the server at that address does not speak HTTPS';
export const NO_HTTPS_HELP =
	'No scheme was typed, so https:// was used, and the server at that address does not speak HTTPS. If it is a plain-HTTP address, type http:// in front of the Base URL in the Business CRM credential.';
/** Before " (<code>)". */
export const TLS_FAILED = 'the TLS handshake failed';
export const PLAIN_HTTP_HELP =
	'The server at the Base URL does not speak HTTPS on that address and port. Check the scheme and port of the Base URL in the Business CRM credential.';
export const NO_ANSWER_IN_TIME = 'no answer in time';
export const TIMEOUT_HELP =
	"The Business CRM API did not answer in time. Try again later, or raise the timeout on this node's Settings tab (Request Options › Timeout).";
/** After "The Business CRM API did not answer within <time>.". */
export const API_UP_HELP = 'Check that the API is up, then try again.';
export const REFUSED = 'the server refused the connection';
export const REFUSED_HELP =
	'Nothing answers at the Base URL of the Business CRM credential. Check the address and port, and that the API is up.';
export const UNRESOLVED = 'the host name could not be resolved';
export const UNRESOLVED_HELP = 'Check the Base URL in the Business CRM credential for typos.';
export const UNREACHABLE = 'the host could not be reached';
export const NETWORK_HELP = 'Check the Base URL in the Business CRM credential and your network.';
export const DROPPED = 'the connection was closed before the reply arrived';
export const DROPPED_HELP = 'The API or a proxy dropped the connection. Try again later.';
export const INCOMPLETE = 'the request could not be completed';

/** Describes a request that failed without an HTTP reply. */
export function describeFailure(error: unknown, context: FailureContext): Failure {
	const refused = n8nRefusal(error);
	if (refused) return refused;
	const code = errorCode(error);
	const certificate = code === undefined ? undefined : CERTIFICATE_PROBLEMS[code];
	if (certificate !== undefined) {
		return {
			message: `${CERTIFICATE_REFUSED}: ${certificate} (${code})`,
			description: context.hasRequestOptions ? CERTIFICATE_HELP : CERTIFICATE_HELP_BY_ID,
			mayHaveReachedApi: false,
			setup: true,
		};
	}
	if (notTls(error, code)) {
		const assumed = context.schemeAssumed === true;
		return {
			message: assumed ? NO_HTTPS : `${TLS_FAILED} (${code ?? 'wrong version number'})`,
			description: assumed ? NO_HTTPS_HELP : PLAIN_HTTP_HELP,
			mayHaveReachedApi: false,
			setup: true,
		};
	}
	switch (code) {
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
			return {
				message: context.timeoutMs
					? `no answer within ${seconds(context.timeoutMs)}`
					: NO_ANSWER_IN_TIME,
				description: context.hasRequestOptions
					? TIMEOUT_HELP
					: `The Business CRM API did not answer within ${context.timeoutMs ? seconds(context.timeoutMs) : 'the time allowed'}. ${API_UP_HELP}`,
				mayHaveReachedApi: true,
			};
		case 'ECONNREFUSED':
			return {
				message: REFUSED,
				description: REFUSED_HELP,
				mayHaveReachedApi: false,
			};
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return {
				message: UNRESOLVED,
				description: UNRESOLVED_HELP,
				mayHaveReachedApi: false,
				setup: true,
			};
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return {
				message: UNREACHABLE,
				description: NETWORK_HELP,
				mayHaveReachedApi: false,
			};
		case 'ECONNRESET':
		case 'EPIPE':
			return {
				message: DROPPED,
				description: DROPPED_HELP,
				mayHaveReachedApi: true,
			};
		default:
			return {
				message: INCOMPLETE,
				description: NETWORK_HELP,
				mayHaveReachedApi: true,
			};
	}
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const NO_REDIRECTS =
	'The node does not follow redirects, so the API key never goes to an address you did not enter.';
export const CHECK_BASE_URL = 'Check the Base URL in the Business CRM credential.';
/** When the Base URL that would reach the target cannot be told. */
export const NEW_ADDRESS_HELP =
	'If the API has moved there, put its new address into the Base URL of the Business CRM credential.';

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
			description: `${NO_REDIRECTS} ${CHECK_BASE_URL}`,
		};
	}
	const shown = `${target.protocol}//${target.host}${target.pathname}`;
	const prefix = target.pathname.endsWith(requestPath)
		? target.pathname.slice(0, target.pathname.length - requestPath.length).replace(/\/+$/, '')
		: undefined;
	const baseUrl = prefix === undefined ? undefined : `${target.protocol}//${target.host}${prefix}`;
	return {
		message: `the Business CRM API answered ${status}, redirecting to ${shown}`,
		description: `${NO_REDIRECTS} ${
			baseUrl
				? `If the API has moved there, put ${baseUrl} into the Base URL of the Business CRM credential.`
				: NEW_ADDRESS_HELP
		}`,
	};
}
