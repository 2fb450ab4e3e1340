/** When a request is sent again, and how long the node waits before it (api/retries.ts). */
import dns from 'node:dns';
import { backoffMs, invalidWait, requestedWaitMs } from '../../nodes/BusinessCrm/api/retries';
import { UNRESOLVED } from '../../nodes/BusinessCrm/api/failures';
import { runNode } from '../helpers/harness.cjs';
import { byId, failed } from '../helpers/fixtures.cjs';
import { useFastClock } from '../helpers/clock.cjs';
import { always, pathsOf, withApi } from '../helpers/scripted-api.cjs';

describe('how long a 429 asks to wait, and a wait it gives that cannot be waited', () => {
	const NOW = Date.parse('2026-01-01T12:00:00Z');

	// A number is not read as a date: V8 parses "-5" as a day in 2001, which would have been an
	// instant retry. An invalid wait is named only when no other wait can be waited.
	it.each<[string, unknown, Record<string, string>, number | undefined, string | undefined]>([
		['retryAfter in seconds', { retryAfter: 2 }, {}, 2000, undefined],
		[
			'a fractional retryAfter, rounded up to the millisecond',
			{ retryAfter: 0.25 },
			{},
			250,
			undefined,
		],
		['retryAfter as a numeric string', { retryAfter: '3' }, {}, 3000, undefined],
		['retryAfter 5', { retryAfter: 5 }, {}, 5000, undefined],
		['retryAfter 0', { retryAfter: 0 }, {}, 0, undefined],
		['the body before the header', { retryAfter: 1 }, { 'retry-after': '9' }, 1000, undefined],
		[
			'a Retry-After header in seconds',
			{ message: 'slow down' },
			{ 'retry-after': '4' },
			4000,
			undefined,
		],
		['a Retry-After header of 3', {}, { 'retry-after': '3' }, 3000, undefined],
		['a Retry-After header of 0', {}, { 'retry-after': '0' }, 0, undefined],
		[
			'a Retry-After date 5 s ahead',
			{},
			{ 'retry-after': 'Thu, 01 Jan 2026 12:00:05 GMT' },
			5000,
			undefined,
		],
		[
			'a Retry-After date in the past: now, never negative',
			{},
			{ 'retry-after': 'Thu, 01 Jan 2026 11:59:00 GMT' },
			0,
			undefined,
		],
		[
			'the header when retryAfter is only spaces',
			{ retryAfter: '  ' },
			{ 'retry-after': '2' },
			2000,
			undefined,
		],
		[
			'the header when retryAfter cannot be waited',
			{ retryAfter: 'soon' },
			{ 'retry-after': '2' },
			2000,
			undefined,
		],
		['retryAfter null', { retryAfter: null }, {}, undefined, undefined],
		['an empty retryAfter', { retryAfter: '' }, {}, undefined, undefined],
		['retryAfter true', { retryAfter: true }, {}, undefined, 'retryAfter true'],
		['a negative retryAfter', { retryAfter: -1 }, {}, undefined, 'retryAfter -1'],
		['retryAfter as text', { retryAfter: 'soon' }, {}, undefined, 'retryAfter "soon"'],
		[
			'retryAfter as an object',
			{ retryAfter: { seconds: 2 } },
			{},
			undefined,
			'retryAfter {"seconds":2}',
		],
		['a body that is not JSON', '<html>Too many requests</html>', {}, undefined, undefined],
		['no body', undefined, {}, undefined, undefined],
		['a Retry-After of only spaces', {}, { 'retry-after': '  ' }, undefined, undefined],
		['a Retry-After of -5', {}, { 'retry-after': '-5' }, undefined, 'Retry-After "-5"'],
		['a Retry-After of -1', {}, { 'retry-after': '-1' }, undefined, 'Retry-After "-1"'],
		[
			'an infinite Retry-After',
			{},
			{ 'retry-after': 'Infinity' },
			undefined,
			'Retry-After "Infinity"',
		],
		[
			'a Retry-After that is neither a number nor a date',
			{},
			{ 'retry-after': 'soon' },
			undefined,
			'Retry-After "soon"',
		],
	])('%s', (_title, body, headers, waitMs, invalid) => {
		const reply = { statusCode: 429, body, headers };
		expect(requestedWaitMs(reply, NOW)).toBe(waitMs);
		expect(invalidWait(reply)).toBe(invalid);
	});

	it('backs off 1 s, 2 s, 4 s … up to 30 s when the reply does not say', () => {
		expect([0, 1, 2, 3, 4, 5, 6].map(backoffMs)).toEqual([
			1000, 2000, 4000, 8000, 16000, 30000, 30000,
		]);
	});
});

describe('retried network failures', () => {
	afterEach(() => jest.restoreAllMocks());
	useFastClock(20);

	const business = always(200, JSON.stringify({ content: { business: { id: 'biz_1' } } }));
	/** Business Get by host name, which the mocked look-up below resolves or not. */
	const getByHostName = (baseUrl: string) =>
		runNode({
			credentials: {
				baseUrl: baseUrl.replace('127.0.0.1', 'localhost'),
				apiKey: 'retries-key',
				organizationId: 'org_1',
			},
			parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
		});
	/** Makes the look-ups of a host fail with `code`: the first one only, or all. */
	const failLookups = (code: string, onlyFirst: boolean) => {
		const lookup = dns.lookup;
		let failures = 0;
		jest.spyOn(dns, 'lookup').mockImplementation(((...args: unknown[]) => {
			if (onlyFirst && failures > 0) return (lookup as (...a: unknown[]) => void)(...args);
			failures++;
			const callback = args[args.length - 1] as (error: Error) => void;
			process.nextTick(() => callback(Object.assign(new Error(code), { code })));
		}) as typeof dns.lookup);
		return () => failures;
	};

	it.each(['EAI_AGAIN', 'ECONNRESET', 'EPIPE'])(
		'a read is retried after %s, then succeeds',
		async (code) =>
			await withApi(business, async (api) => {
				// As a resolver or a dropped socket fails.
				const failures = failLookups(code, true);
				const result = await getByHostName(api.url);
				expect(result.error).toBeUndefined();
				expect(failures()).toBe(1);
				expect(pathsOf(api)).toEqual(['/api/business/biz_1']);
			}),
	);

	it('a read is not retried after ENOTFOUND', async () =>
		await withApi(business, async (api) => {
			failLookups('ENOTFOUND', false);
			const started = Date.now();
			const result = await getByHostName(api.url);
			expect(result.error?.message).toBe(failed('Get business', UNRESOLVED));
			expect(Date.now() - started).toBeLessThan(900);
			expect(api.urls).toEqual([]);
		}));
});
