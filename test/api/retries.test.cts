import { backoffMs, requestedWaitMs } from '../../nodes/BusinessCrm/api/retries';

const reply = (body: unknown, headers: Record<string, unknown> = {}) => ({
	statusCode: 429,
	body,
	headers,
});

describe('how long a 429 asks to wait', () => {
	it.each([
		['retryAfter in seconds', { retryAfter: 2 }, {}, 2000],
		['a fractional retryAfter, rounded up to the millisecond', { retryAfter: 0.25 }, {}, 250],
		['retryAfter as a numeric string', { retryAfter: '3' }, {}, 3000],
		['the body before the header', { retryAfter: 1 }, { 'retry-after': '9' }, 1000],
		['a Retry-After header in seconds', { message: 'slow down' }, { 'retry-after': '4' }, 4000],
		['retryAfter 0', { retryAfter: 0 }, {}, 0],
		['a Retry-After header of 0', {}, { 'retry-after': '0' }, 0],
		[
			'the header when retryAfter is only spaces',
			{ retryAfter: '  ' },
			{ 'retry-after': '2' },
			2000,
		],
		[
			'the header when retryAfter cannot be waited',
			{ retryAfter: 'soon' },
			{ 'retry-after': '2' },
			2000,
		],
	])('reads %s', (_, body, headers, expected) => {
		expect(requestedWaitMs(reply(body, headers))).toBe(expected);
	});

	it('reads a Retry-After date', () => {
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(
			requestedWaitMs(reply({}, { 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }), now),
		).toBe(5000);
	});

	it.each([
		['null', { retryAfter: null }],
		['an empty string', { retryAfter: '' }],
		['a boolean', { retryAfter: true }],
		['a negative number', { retryAfter: -1 }],
		['text', { retryAfter: 'soon' }],
		['a body that is not JSON', '<html>Too many requests</html>'],
		['no body', undefined],
	])('ignores retryAfter that is %s, and then there is no asked wait', (_, body) => {
		expect(requestedWaitMs(reply(body))).toBeUndefined();
	});

	// A number that cannot be waited is not read as a date: V8 parses "-5" as a day in 2001,
	// which would have been an instant retry.
	it.each([
		['only spaces', '  '],
		['negative', '-5'],
		['infinite', 'Infinity'],
		['neither a number nor a date', 'soon'],
	])('ignores a Retry-After header that is %s, and then there is no asked wait', (_, header) => {
		expect(requestedWaitMs(reply({}, { 'retry-after': header }))).toBeUndefined();
	});

	it('backs off 1 s, 2 s, 4 s … up to 30 s when the reply does not say', () => {
		expect([0, 1, 2, 3, 4, 5, 6].map(backoffMs)).toEqual([
			1000, 2000, 4000, 8000, 16000, 30000, 30000,
		]);
	});
});

describe('Retry-After', () => {
	it('a date in the past means retry now: a wait of 0, never negative', () => {
		const now = Date.parse('2026-01-01T12:00:00Z');
		const dated = (value: string) => ({
			statusCode: 429,
			body: {},
			headers: { 'retry-after': value },
		});
		expect(requestedWaitMs(dated('Thu, 01 Jan 2026 11:59:00 GMT'), now)).toBe(0);
		expect(requestedWaitMs(dated('Thu, 01 Jan 2026 12:00:05 GMT'), now)).toBe(5000);
	});
});
