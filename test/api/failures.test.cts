/** The words for a request that failed without an HTTP reply, or was redirected (api/failures.ts). */
import {
	ALLOW_DOMAIN_HELP,
	API_UP_HELP,
	CERTIFICATE_HELP,
	CERTIFICATE_HELP_BY_ID,
	CERTIFICATE_REFUSED,
	CHECK_BASE_URL,
	describeFailure,
	describeRedirect,
	DROPPED,
	DROPPED_HELP,
	INCOMPLETE,
	NETWORK_HELP,
	NEW_ADDRESS_HELP,
	NO_ANSWER_IN_TIME,
	NO_HTTPS,
	NO_HTTPS_HELP,
	NO_REDIRECTS,
	NOT_ALLOWED_DOMAIN,
	PLAIN_HTTP_HELP,
	SSRF_HELP,
	TIMEOUT_HELP,
	TLS_FAILED,
	UNREACHABLE,
	UNRESOLVED,
	UNRESOLVED_HELP,
	type FailureContext,
} from '../../nodes/BusinessCrm/api/failures';
import { API_ANSWERED } from '../../nodes/BusinessCrm/errors/errors';

/** An error as Node.js raises it, with a code and, when given, a cause and other fields. */
const failed = (
	code: string | undefined,
	message = 'failed',
	cause?: unknown,
	fields: Record<string, string> = {},
) =>
	Object.assign(
		new Error(message),
		code === undefined ? {} : { code },
		cause ? { cause } : {},
		fields,
	);
/** An error as axios raises it when a request's timeout passes. */
const timedOut = () => failed('ECONNABORTED', 'timeout of 30000ms exceeded');
const inOperation: FailureContext = { hasRequestOptions: true };

describe('A request that gets no answer in time', () => {
	// The business list search cannot be given a timeout by the user, so its words name the 30 s
	// it waits (test/api/one-road.test.cts waits them, on a fast clock).
	it.each<[string, FailureContext, string, string]>([
		[
			'in a list search, names the wait and does not point at Request Options',
			{ timeoutMs: 30_000, hasRequestOptions: false },
			'no answer within 30 s',
			`The Business CRM API did not answer within 30 s. ${API_UP_HELP}`,
		],
		[
			"in an operation, points at the node's Settings tab, Request Options › Timeout",
			{ timeoutMs: 2500, hasRequestOptions: true },
			'no answer within 2.5 s',
			TIMEOUT_HELP,
		],
		[
			'without a known timeout, says so',
			{ hasRequestOptions: false },
			NO_ANSWER_IN_TIME,
			`The Business CRM API did not answer within the time allowed. ${API_UP_HELP}`,
		],
	])('%s', (_title, context, message, description) => {
		expect(describeFailure(timedOut(), context)).toEqual({
			message,
			description,
			mayHaveReachedApi: true,
		});
	});
});

describe('each network error code has its own words', () => {
	// Only a mistyped host is the setup's to fix; an unreachable network may come back.
	it.each<[string, string, string, boolean, boolean]>([
		['EHOSTUNREACH', UNREACHABLE, NETWORK_HELP, false, false],
		['ENETUNREACH', UNREACHABLE, NETWORK_HELP, false, false],
		['ETIMEDOUT', NO_ANSWER_IN_TIME, TIMEOUT_HELP, true, false],
		['EAI_AGAIN', UNRESOLVED, UNRESOLVED_HELP, false, true],
		['EPIPE', DROPPED, DROPPED_HELP, true, false],
	])('%s: %s', (code, message, description, mayHaveReachedApi, setup) => {
		expect(describeFailure(failed(code), inOperation)).toStrictEqual({
			message,
			description,
			mayHaveReachedApi,
			...(setup ? { setup: true } : {}),
		});
	});

	it('an error without a code, even one that is not an Error, is described, not thrown', () => {
		for (const error of [new Error('socket hang up'), 'a string', undefined]) {
			expect(describeFailure(error, inOperation)).toEqual({
				message: INCOMPLETE,
				description: NETWORK_HELP,
				mayHaveReachedApi: true,
			});
		}
	});
});

describe('named certificate problems', () => {
	it('each certificate code the node knows is named in words, and nothing reached the API', () => {
		// Literal words: CERTIFICATE_PROBLEMS is a module constant, which mutation testing leaves alone.
		const named = {
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
		for (const [code, words] of Object.entries(named)) {
			expect(describeFailure(failed(code), inOperation)).toEqual({
				message: `${CERTIFICATE_REFUSED}: ${words} (${code})`,
				description: CERTIFICATE_HELP,
				mayHaveReachedApi: false,
				setup: true,
			});
		}
	});

	it('a certificate problem in a list search points at entering the business By ID', () => {
		expect(
			describeFailure(failed('CERT_HAS_EXPIRED'), { hasRequestOptions: false }).description,
		).toBe(CERTIFICATE_HELP_BY_ID);
	});
});

describe('a refusal by n8n itself: nothing reached the API', () => {
	it.each(['SsrfBlockedIpError', 'SsrfBlockedHostnameError'])(
		"n8n's SSRF protection (%s) is named",
		(name) => {
			const blocked = failed(undefined, 'IP 10.0.0.1 is blocked', undefined, { name });
			expect(describeFailure(blocked, inOperation)).toEqual({
				message: 'n8n blocked it: iP 10.0.0.1 is blocked',
				description: SSRF_HELP,
				mayHaveReachedApi: false,
				setup: true,
			});
		},
	);

	it("a host outside the credential's Allowed Domains, found on the cause chain", () => {
		const refused = failed(undefined, 'Request failed', failed(undefined, 'Domain not allowed: x'));
		expect(describeFailure(refused, inOperation)).toEqual({
			message: NOT_ALLOWED_DOMAIN,
			description: `n8n says: Domain not allowed: x. ${ALLOW_DOMAIN_HELP}`,
			mayHaveReachedApi: false,
			setup: true,
		});
	});
});

describe('a server that does not speak TLS where https:// was used: nothing reached the API', () => {
	it.each<[string, Error, string]>([
		['EPROTO names its code', failed('EPROTO', 'handshake'), 'EPROTO'],
		[
			'ERR_SSL_WRONG_VERSION_NUMBER names its code',
			failed('ERR_SSL_WRONG_VERSION_NUMBER', 'handshake'),
			'ERR_SSL_WRONG_VERSION_NUMBER',
		],
		[
			'"wrong version number" from OpenSSL, with a code that is not a Node.js one',
			failed('ssl3_get_record:WRONG_VERSION_NUMBER', 'ssl3: wrong version number'),
			'wrong version number',
		],
		[
			'"wrong version number" after a code with a trailing message',
			failed('EPROTO: handshake', 'wrong version number'),
			'wrong version number',
		],
	])('%s', (_title, error, named) => {
		expect(describeFailure(error, inOperation)).toEqual({
			message: `${TLS_FAILED} (${named})`,
			description: PLAIN_HTTP_HELP,
			mayHaveReachedApi: false,
			setup: true,
		});
	});

	it('when no scheme was typed, says https:// was assumed', () => {
		expect(describeFailure(failed('EPROTO'), { ...inOperation, schemeAssumed: true })).toEqual({
			message: NO_HTTPS,
			description: NO_HTTPS_HELP,
			mayHaveReachedApi: false,
			setup: true,
		});
	});
});

describe('a redirect the node does not follow', () => {
	it('to an address that is not a URL', () => {
		expect(describeRedirect(301, 'http://[::1', 'https://api.example.com/x', '/x')).toEqual({
			message: `${API_ANSWERED} 301, redirecting to an address that is not a URL`,
			description: `${NO_REDIRECTS} ${CHECK_BASE_URL}`,
		});
	});

	it('to another path: names the target, and no Base URL it cannot derive', () => {
		expect(
			describeRedirect(
				302,
				'https://login.example.com/sso?next=1',
				'https://api.example.com/api/business/list/all',
				'/api/business/list/all',
			),
		).toEqual({
			message: `${API_ANSWERED} 302, redirecting to https://login.example.com/sso`,
			description: `${NO_REDIRECTS} ${NEW_ADDRESS_HELP}`,
		});
	});

	it.each<[string, number, string | undefined]>([
		['a status that is not a redirect', 300, 'https://a.example.com/'],
		['a redirect with a blank Location', 301, '  '],
		['a redirect without Location', 301, undefined],
	])('%s is not described as one', (_title, status, location) => {
		expect(describeRedirect(status, location, 'https://b.example.com/x', '/x')).toBe(undefined);
	});
});

describe('a redirect to where the API has moved names the Base URL to enter', () => {
	it.each([
		[
			'under a path prefix',
			'https://new.example.com/v2/api/business/list/all',
			'https://new.example.com/v2',
		],
		[
			'without the slashes doubled in the Location',
			'https://new.example.com/v2///api/business/list/all',
			'https://new.example.com/v2',
		],
		[
			'with no-break spaces pasted around the Location',
			'\u00a0https://new.example.com/api/business/list/all\u00a0',
			'https://new.example.com',
		],
	])('%s', (_title, location, baseUrl) => {
		const moved = describeRedirect(
			301,
			location,
			'https://api.example.com/api/business/list/all',
			'/api/business/list/all',
		);
		expect(moved?.description).toBe(
			`${NO_REDIRECTS} If the API has moved there, put ${baseUrl} into the Base URL of the Business CRM credential.`,
		);
	});
});
