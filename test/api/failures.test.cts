import { describeFailure, describeRedirect } from '../../nodes/BusinessCrm/api/failures';
import { apiWords } from '../../nodes/BusinessCrm/errors/errors';
import { redact } from '../../nodes/BusinessCrm/errors/redaction';
import { invalidWait } from '../../nodes/BusinessCrm/api/retries';

/** An error as axios raises it when a request's timeout passes. */
function timedOut(): Error {
	return Object.assign(new Error('timeout of 30000ms exceeded'), { code: 'ECONNABORTED' });
}

describe('A request that gets no answer in time', () => {
	// The business list search cannot be given a timeout by the user, so its words name the 30 s
	// it waits (test/resources/business/business.test.cts waits them for real, outside mutation runs).
	it('in a list search, names the wait and does not point at Request Options', () => {
		expect(describeFailure(timedOut(), { timeoutMs: 30_000, hasRequestOptions: false })).toEqual({
			message: 'no answer within 30 s',
			description:
				'The Business CRM API did not answer within 30 s. Check that the API is up, then try again.',
			mayHaveReachedApi: true,
		});
	});

	it("in an operation, points at the node's Settings tab, Request Options › Timeout", () => {
		expect(describeFailure(timedOut(), { timeoutMs: 2500, hasRequestOptions: true })).toEqual({
			message: 'no answer within 2.5 s',
			description:
				"The Business CRM API did not answer in time. Try again later, or raise the timeout on this node's Settings tab (Request Options › Timeout).",
			mayHaveReachedApi: true,
		});
	});

	it('without a known timeout, says so', () => {
		expect(describeFailure(timedOut(), { hasRequestOptions: false })).toEqual({
			message: 'no answer in time',
			description:
				'The Business CRM API did not answer within the time allowed. Check that the API is up, then try again.',
			mayHaveReachedApi: true,
		});
	});
});

describe('a request that fails otherwise', () => {
	it('an unreachable host or network says so; nothing reached the API', () => {
		for (const code of ['EHOSTUNREACH', 'ENETUNREACH']) {
			const error = Object.assign(new Error('connect failed'), { code });
			expect(describeFailure(error, { hasRequestOptions: true })).toEqual({
				message: 'the host could not be reached',
				description: 'Check the Base URL in the Business CRM credential and your network.',
				mayHaveReachedApi: false,
			});
		}
	});

	it('an error without a code, even one that is not an Error, is described, not thrown', () => {
		for (const error of [new Error('socket hang up'), 'a string', undefined]) {
			expect(describeFailure(error, { hasRequestOptions: true })).toEqual({
				message: 'the request could not be completed',
				description: 'Check the Base URL in the Business CRM credential and your network.',
				mayHaveReachedApi: true,
			});
		}
	});
});

describe('a redirect the node does not follow', () => {
	it('to an address that is not a URL', () => {
		expect(describeRedirect(301, 'http://[::1', 'https://api.example.com/x', '/x')).toEqual({
			message: 'the Business CRM API answered 301, redirecting to an address that is not a URL',
			description:
				'The node does not follow redirects, so the API key never goes to an address you did not enter. Check the Base URL in the Business CRM credential.',
		});
	});

	it('to another path: names the target, and no Base URL it cannot derive', () => {
		const redirect = describeRedirect(
			302,
			'https://login.example.com/sso?next=1',
			'https://api.example.com/api/business/list/all',
			'/api/business/list/all',
		);
		expect(redirect?.message).toBe(
			'the Business CRM API answered 302, redirecting to https://login.example.com/sso',
		);
		expect(redirect?.description).toContain('put its new address into the Base URL');
	});

	it('a status that is not a redirect, or a redirect without Location, is not described as one', () => {
		expect(describeRedirect(300, 'https://a.example.com/', 'https://b.example.com/x', '/x')).toBe(
			undefined,
		);
		expect(describeRedirect(301, '  ', 'https://b.example.com/x', '/x')).toBe(undefined);
		expect(describeRedirect(301, undefined, 'https://b.example.com/x', '/x')).toBe(undefined);
	});
});

describe("the API's words in an error reply", () => {
	it('are read only from an object, only as non-blank text, trimmed', () => {
		for (const notAnObject of [['Not Found'], 'Not Found', 404, null]) {
			expect(apiWords(notAnObject)).toStrictEqual({});
		}
		expect(apiWords({ message: 404, err: '  gone  ' })).toEqual({
			message: undefined,
			err: 'gone',
		});
		expect(apiWords({ message: ' ', err: 'x' })).toEqual({ message: undefined, err: 'x' });
	});

	it('a secret shorter than 4 characters is not cut out of ordinary words', () => {
		expect(redact('the key abc was refused', ['abc'])).toBe('the key abc was refused');
		expect(redact('the key abcd was refused', ['abcd'])).toBe('the key [redacted] was refused');
	});
});

describe('a Retry-After that cannot be waited is named', () => {
	const reply = (retryAfter: string) => ({
		statusCode: 429,
		body: {},
		headers: { 'retry-after': retryAfter },
	});

	it.each(['-1', 'Infinity', 'soon'])('%s', (value) => {
		expect(invalidWait(reply(value))).toBe(`Retry-After ${JSON.stringify(value)}`);
	});

	it('a date or a number of seconds can be waited', () => {
		expect(invalidWait(reply('Thu, 01 Jan 2026 12:00:05 GMT'))).toBeUndefined();
		expect(invalidWait(reply('3'))).toBeUndefined();
		expect(invalidWait(reply('0'))).toBeUndefined();
	});

	it('a header of only spaces says nothing, so nothing is named', () => {
		expect(invalidWait(reply('  '))).toBeUndefined();
	});
});

describe('a retryAfter in the body that cannot be waited is named', () => {
	const reply = (retryAfter: unknown) => ({ statusCode: 429, body: { retryAfter }, headers: {} });

	it.each<[string, unknown, string]>([
		['true', true, 'retryAfter true'],
		['an object', { seconds: 2 }, 'retryAfter {"seconds":2}'],
		['negative', -1, 'retryAfter -1'],
		['text', 'soon', 'retryAfter "soon"'],
	])('%s', (_title, value, shown) => {
		expect(invalidWait(reply(value))).toBe(shown);
	});

	it.each<[string, unknown]>([
		['a number', 5],
		['0', 0],
		['a number in a string', '5'],
		['null (no wait given)', null],
		['an empty string (no wait given)', ''],
	])('%s is not', (_title, value) => {
		expect(invalidWait(reply(value))).toBeUndefined();
	});
});

/** An error as Node.js raises it, with a code and, when given, a cause. */
const failed = (code: string | undefined, message = 'failed', cause?: unknown) =>
	Object.assign(new Error(message), code === undefined ? {} : { code }, cause ? { cause } : {});

describe('a refusal by n8n itself: nothing reached the API', () => {
	it("a host outside the credential's Allowed Domains, found on the cause chain", () => {
		const refused = failed(undefined, 'Request failed', failed(undefined, 'Domain not allowed: x'));
		expect(describeFailure(refused, { hasRequestOptions: true })).toEqual({
			message: "the Base URL's host is not among the credential's allowed domains",
			description:
				'n8n says: Domain not allowed: x. Add the host to Allowed Domains in the Business CRM credential, or set its Allowed HTTP Request Domains to All.',
			mayHaveReachedApi: false,
		});
	});
});

describe('a server that does not speak TLS where https:// was used: nothing reached the API', () => {
	const PLAIN_HTTP =
		'The server at the Base URL does not speak HTTPS on that address and port. Check the scheme and port of the Base URL in the Business CRM credential.';

	it.each(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER'])('%s names its code', (code) => {
		expect(describeFailure(failed(code, 'handshake'), { hasRequestOptions: true })).toEqual({
			message: `the TLS handshake failed (${code})`,
			description: PLAIN_HTTP,
			mayHaveReachedApi: false,
		});
	});

	it('"wrong version number" from OpenSSL, with a code that is not a Node.js one', () => {
		const error = failed('ssl3_get_record:WRONG_VERSION_NUMBER', 'ssl3: wrong version number');
		expect(describeFailure(error, { hasRequestOptions: true })).toEqual({
			message: 'the TLS handshake failed (wrong version number)',
			description: PLAIN_HTTP,
			mayHaveReachedApi: false,
		});
		const trailing = failed('EPROTO: handshake', 'wrong version number');
		expect(describeFailure(trailing, { hasRequestOptions: true }).message).toBe(
			'the TLS handshake failed (wrong version number)',
		);
	});

	it('when no scheme was typed, says https:// was assumed', () => {
		expect(
			describeFailure(failed('EPROTO'), { hasRequestOptions: true, schemeAssumed: true }),
		).toEqual({
			message: 'the server at that address does not speak HTTPS',
			description:
				'No scheme was typed, so https:// was used, and the server at that address does not speak HTTPS. If it is a plain-HTTP address, type http:// in front of the Base URL in the Business CRM credential.',
			mayHaveReachedApi: false,
		});
	});
});

describe('each network error code has its own words', () => {
	it('a certificate problem in a list search points at entering the business By ID', () => {
		expect(
			describeFailure(failed('CERT_HAS_EXPIRED'), { hasRequestOptions: false }).description,
		).toBe(
			"Fix the certificate on the server. Until then, enter the business By ID and turn on Ignore SSL Issues on the node's Settings tab (Request Options › Ignore SSL Issues).",
		);
	});

	it.each([
		['ETIMEDOUT', 'no answer in time'],
		['EAI_AGAIN', 'the host name could not be resolved'],
		['EPIPE', 'the connection was closed before the reply arrived'],
	])('%s: %s', (code, message) => {
		expect(describeFailure(failed(code), { hasRequestOptions: true }).message).toBe(message);
	});
});

describe('a redirect to where the API has moved names the Base URL to enter', () => {
	const moved = (location: string) =>
		describeRedirect(
			301,
			location,
			'https://api.example.com/api/business/list/all',
			'/api/business/list/all',
		)?.description;
	const SAYS = (baseUrl: string) =>
		`The node does not follow redirects, so the API key never goes to an address you did not enter. If the API has moved there, put ${baseUrl} into the Base URL of the Business CRM credential.`;

	it('under a path prefix', () => {
		expect(moved('https://new.example.com/v2/api/business/list/all')).toBe(
			SAYS('https://new.example.com/v2'),
		);
	});

	it('without the slashes doubled in the Location', () => {
		expect(moved('https://new.example.com/v2///api/business/list/all')).toBe(
			SAYS('https://new.example.com/v2'),
		);
	});

	it('with no-break spaces pasted around the Location', () => {
		expect(moved('\u00a0https://new.example.com/api/business/list/all\u00a0')).toBe(
			SAYS('https://new.example.com'),
		);
	});
});
