import { describeFailure, describeRedirect } from '../nodes/BusinessCrm/shared/failures';
import { apiWords, redact } from '../nodes/BusinessCrm/shared/errors';
import { invalidWait } from '../nodes/BusinessCrm/shared/transport';

/** An error as axios raises it when a request's timeout passes. */
function timedOut(): Error {
	return Object.assign(new Error('timeout of 30000ms exceeded'), { code: 'ECONNABORTED' });
}

describe('A request that gets no answer in time', () => {
	// The business list search cannot be given a timeout by the user, so its words name the 30 s
	// it waits (test/business.test.ts waits them for real, outside mutation runs).
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
		expect(apiWords(['Not Found'])).toEqual({});
		expect(apiWords(null)).toEqual({});
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
	});
});
