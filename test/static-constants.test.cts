/**
 * Behaviour held in module-level constants, which mutation testing does not change (Stryker's
 * ignoreStatic): each test here fails when one of them changes. test/mutation/static-constants.md
 * lists every such constant and the test that guards it.
 */
import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkCredential } from '../nodes/BusinessCrm/credential/credential';
import { describeFailure } from '../nodes/BusinessCrm/api/failures';
import { Pacer } from '../nodes/BusinessCrm/api/pacing';
import { redact } from '../nodes/BusinessCrm/errors/redaction';
import { LIST_SEARCH_TIMEOUT_MS } from '../nodes/BusinessCrm/api/requestSettings';
import { runNode, testCredential, type CrmCredentials } from './helpers/harness.cjs';
import { byId } from './helpers/fixtures.cjs';
import { useFastClock } from './helpers/clock.cjs';

const getBusiness = { resource: 'business', operation: 'get', businessId: byId('biz_1') };

let server: Server;
let port: number;
let answer: () => { status: number; headers?: Record<string, string>; body: string };
const seen: string[] = [];
beforeAll(async () => {
	server = createServer((req, res) => {
		seen.push(`${req.method} ${req.url}`);
		const { status, headers, body } = answer();
		res.writeHead(status, { 'content-type': 'application/json', ...headers });
		res.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
	seen.length = 0;
	answer = () => ({
		status: 200,
		body: JSON.stringify({ content: { business: { id: 'biz_1' } } }),
	});
});

const credentials = (baseUrl = `http://127.0.0.1:${port}`): CrmCredentials => ({
	baseUrl,
	apiKey: 'static-constants-key',
	organizationId: 'org_1',
});

describe('retried network failures', () => {
	afterEach(() => jest.restoreAllMocks());
	useFastClock(20);

	it.each(['EAI_AGAIN', 'ECONNRESET', 'EPIPE'])(
		'a read is retried after %s, then succeeds',
		async (code) => {
			// The first look-up of the host fails with the code, as a resolver or a dropped socket does.
			const lookup = dns.lookup;
			let failed = false;
			jest.spyOn(dns, 'lookup').mockImplementation(((...args: unknown[]) => {
				const callback = args[args.length - 1] as (error: Error) => void;
				if (!failed) {
					failed = true;
					process.nextTick(() => callback(Object.assign(new Error(code), { code })));
					return;
				}
				return (lookup as (...a: unknown[]) => void)(...args);
			}) as typeof dns.lookup);
			const result = await runNode({
				credentials: credentials(`http://localhost:${port}`),
				parameters: getBusiness,
			});
			expect(result.error).toBeUndefined();
			expect(failed).toBe(true);
			expect(seen).toEqual(['GET /api/business/biz_1']);
		},
	);

	it('a read is not retried after ENOTFOUND', async () => {
		jest.spyOn(dns, 'lookup').mockImplementation(((...args: unknown[]) => {
			const callback = args[args.length - 1] as (error: Error) => void;
			process.nextTick(() =>
				callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })),
			);
		}) as typeof dns.lookup);
		const started = Date.now();
		const result = await runNode({
			credentials: credentials(`http://localhost:${port}`),
			parameters: getBusiness,
		});
		expect(result.error?.message).toBe('Get business failed: the host name could not be resolved');
		expect(Date.now() - started).toBeLessThan(900);
	});
});

describe('redirect statuses', () => {
	it('a 303 is a redirect: named, not followed', async () => {
		answer = () => ({
			status: 303,
			headers: { location: `http://127.0.0.1:${port}/moved/api/business/biz_1` },
			body: '',
		});
		const result = await runNode({ credentials: credentials(), parameters: getBusiness });
		expect(result.error?.message).toBe(
			`Get business failed: the Business CRM API answered 303, redirecting to http://127.0.0.1:${port}/moved/api/business/biz_1`,
		);
		expect(seen).toEqual(['GET /api/business/biz_1']);
	});
});

describe("the credential Test's redirect rules", () => {
	it('each redirect status fails the Test with the redirect message, and is not followed', async () => {
		for (const status of [301, 302, 303, 307, 308]) {
			answer = () => ({
				status,
				headers: { location: `http://127.0.0.1:${port}/elsewhere` },
				body: '',
			});
			expect(await testCredential(credentials())).toMatchObject({
				status: 'Error',
				message: `The API answered with a redirect to another address. The node does not follow redirects, so the API key never goes to an address you did not enter: put the address of the API itself into the Base URL. (HTTP ${status})`,
			});
		}
		expect(seen).toHaveLength(5);
		expect(seen.every((request) => request === 'GET /api/public/v1/test-api-key')).toBe(true);
	});
});

describe('the shortest API key', () => {
	it('a key of 8 characters is accepted, one of 7 is refused', () => {
		const check = (apiKey: string) =>
			checkCredential({ baseUrl: 'https://api.example.com', apiKey, organizationId: 'org_1' });
		expect(check('12345678')).toMatchObject({ apiKey: '12345678' });
		expect(check('1234567')).toMatchObject({
			problem:
				'The API Key in the Business CRM credential has only 7 characters, too few for an API key',
		});
	});
});

describe('the characters named in messages', () => {
	it('each has its own name, at its position', () => {
		const named: Array<[string, string]> = [
			['\t', 'a tab (U+0009)'],
			['\n', 'a line break (U+000A)'],
			['\r', 'a line break (U+000D)'],
			[' ', 'a space (U+0020)'],
			['\u00a0', 'a no-break space (U+00A0)'],
			['\u00ad', 'a soft hyphen (U+00AD)'],
			['\u200b', 'a zero-width space (U+200B)'],
			['\u200c', 'a zero-width non-joiner (U+200C)'],
			['\u200d', 'a zero-width joiner (U+200D)'],
			['\u2060', 'a word joiner (U+2060)'],
			['\ufeff', 'a byte order mark (U+FEFF)'],
			['\u0085', 'a control character (U+0085)'],
			['\u2062', 'an invisible formatting character (U+2062)'],
			['\u3000', 'an unusual space (U+3000)'],
		];
		for (const [character, name] of named) {
			expect(
				checkCredential({
					baseUrl: 'https://api.example.com',
					apiKey: `abcd${character}efgh`,
					organizationId: 'org_1',
				}),
			).toMatchObject({
				problem: `The API Key in the Business CRM credential contains ${name} at position 5`,
			});
		}
	});

	it('a space in the Base URL is left to the spaces check; every other invisible one is named', () => {
		const check = (baseUrl: string) =>
			checkCredential({ baseUrl, apiKey: 'abcdefgh', organizationId: 'org_1' });
		expect(check('https://api.example.com /x')).toMatchObject({
			problem: expect.stringContaining('contains spaces.') as string,
		});
		expect(check('https://api.example.com\u3000/x')).toMatchObject({
			problem: expect.stringContaining(
				'contains an unusual space (U+3000) at position 24.',
			) as string,
		});
		expect(check('https://api.example.com/\u00e9')).toMatchObject({
			baseUrl: 'https://api.example.com/\u00e9',
		});
	});
});

describe('secrets are redacted from 4 characters on, in every encoding', () => {
	it('a secret of 4 characters is redacted, one of 3 is not', () => {
		expect(redact('abcd abc', ['abcd'])).toBe('[redacted] abc');
		expect(redact('abc', ['abc'])).toBe('abc');
	});

	it('every encoded form of each character is redacted', () => {
		const secret = `a"&<>'/\\ b`;
		const forms = [
			'a&quot;&amp;&lt;&gt;&apos;/\\ b',
			'a&#34;&#38;&#60;&#62;&#39;&#47;&#92;&#32;b',
			'a&#x22;&#X26;&#x3c;&#x3E;&#x27;&#x2f;&#x5C;&#x20;b',
			'a%22%26%3C%3E%27%2F%5C%20b',
			'a%22%26%3c%3e%27%2f%5c+b',
			'a%2522%2526%253C%253E%2527%252F%255C%2520b',
			'a\\"&<>\'\\/\\\\ b',
			'\\u0061\\u0022\\u0026\\u003c\\u003E\\u0027\\u002f\\u005C\\u0020\\u0062',
		];
		for (const form of forms) expect(redact(`[${form}]`, [secret])).toBe('[[redacted]]');
	});

	it('a secret holding regular-expression characters is matched as written', () => {
		const secret = '.*+?^${}()|[]-';
		expect(redact(`x${secret}x`, [secret])).toBe('x[redacted]x');
		expect(redact('x..............x', [secret])).toBe('x..............x');
	});

	it('the longer of two overlapping secrets is cut out whole', () => {
		expect(redact('pass-word-long', ['pass', 'pass-word-long'])).toBe('[redacted]');
	});
});

describe('named certificate problems and n8n refusals', () => {
	const failed = (fields: Record<string, string>) =>
		Object.assign(new Error(fields.message ?? 'x'), fields);

	it('each certificate code the node knows is named in words, and nothing reached the API', () => {
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
			expect(describeFailure(failed({ code }), { hasRequestOptions: true })).toMatchObject({
				message: `the TLS certificate of the API was not accepted: ${words} (${code})`,
				mayHaveReachedApi: false,
			});
		}
	});

	it.each(['SsrfBlockedIpError', 'SsrfBlockedHostnameError'])(
		"n8n's SSRF protection (%s) is named, and nothing reached the API",
		(name) => {
			expect(
				describeFailure(failed({ name, message: 'IP 10.0.0.1 is blocked' }), {
					hasRequestOptions: true,
				}),
			).toMatchObject({
				message: 'n8n blocked it: iP 10.0.0.1 is blocked',
				mayHaveReachedApi: false,
			});
		},
	);
});

describe('timeouts', () => {
	it('the business list search gives up after 30 s', () => {
		expect(LIST_SEARCH_TIMEOUT_MS).toBe(30_000);
	});
});

describe("the pacer's steps", () => {
	beforeEach(() => jest.useFakeTimers({ now: 0 }));
	afterEach(() => jest.useRealTimers());

	/** The times the next `count` turns of the pacer are given. */
	async function turns(pacer: Pacer, count: number): Promise<number[]> {
		const times: number[] = [];
		for (let i = 0; i < count; i++) {
			const turn = pacer.turn();
			await jest.runAllTimersAsync();
			times.push(await turn);
		}
		return times;
	}

	it('paced at the rate measured, raised by 0.01 per success, cut to 95 % per further 429', async () => {
		const pacer = new Pacer();
		expect(await turns(pacer, 1)).toEqual([0]);
		for (let i = 0; i < 10; i++) pacer.succeeded();
		jest.setSystemTime(1000);
		// 10 successes in the 2 s the API asked to wait: 5 requests a second, one per 200 ms.
		pacer.throttled(1000, 2000);
		expect(await turns(pacer, 3)).toEqual([3000, 3200, 3400]);
		pacer.succeeded();
		const [a, b] = await turns(pacer, 2);
		expect(a).toBe(3600);
		expect(b - a).toBeCloseTo(1000 / 5.01, 6);
		pacer.throttled(Date.now(), 500);
		const [c, d] = await turns(pacer, 2);
		expect(c - b).toBeCloseTo(1000 / 5.01, 6);
		expect(d - c).toBeCloseTo(1000 / (5.01 * 0.95), 6);
	});

	it('never slower than one request in 10 s', async () => {
		const pacer = new Pacer();
		await turns(pacer, 1);
		pacer.succeeded();
		jest.setSystemTime(10);
		// 1 success over a 1,000 s wait would be 0.001 requests a second.
		pacer.throttled(10, 1_000_000);
		const [first, second] = await turns(pacer, 2);
		expect(second - first).toBe(10_000);
	});
});
