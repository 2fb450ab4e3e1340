/**
 * The API key never reaches an output or an error in any form an API may echo it: cut by an
 * excerpt, percent-encoded (either case of hex, or form-encoded), JSON-escaped, or holding a
 * quote or backslash. And a Base URL with an invisible character is refused before anything is
 * sent. Every reply comes from a small server on 127.0.0.1 that echoes the key it received.
 */
import type { IncomingMessage } from 'node:http';
import { NOT_JSON_REPLY } from '../../nodes/BusinessCrm/api/reply';
import { EXAMPLE } from '../../nodes/BusinessCrm/credential/baseUrl';
import {
	checkCredential,
	IN_CREDENTIAL,
	type CredentialProblem,
} from '../../nodes/BusinessCrm/credential/credential';
import { API_ANSWERED } from '../../nodes/BusinessCrm/errors/errors';
import {
	producedBy,
	runEachWay,
	runNode,
	testCredential,
	type CrmCredentials,
	type RunResult,
} from '../helpers/harness.cjs';
import {
	answered,
	basicAuthOf,
	createAda,
	echoing,
	failed,
	getBusinessOf,
	type Echo,
} from '../helpers/fixtures.cjs';
import { startApi, type ScriptedApi } from '../helpers/scripted-api.cjs';

/** A plain key, each of whose 3-character pieces is unlikely anywhere else. */
const PLAIN_CANARY = 'Qx8Zq7Kp2Vd7Rw4Jm9Tn5Hs1Lb';
/** A key holding every character some encoding changes: quote, backslash, %, +, /, =, &, <, >, !, (. */
const ODD_CANARY = 'Qx8"Zq\\Kp+/Vd7=Rw4%Jm9&Tn<Hs>Lb!(';

const GET = 'Get business';

let answer: (key: string, request: IncomingMessage) => Echo;
let api: ScriptedApi;
let url: string;

beforeAll(async () => {
	api = await startApi(echoing((key, request) => answer(key, request)));
	url = api.url;
});
afterAll(async () => await api.close());
beforeEach(() => {
	api.seen.length = 0;
});

const credentials = (apiKey: string, baseUrl = url): CrmCredentials => ({
	baseUrl,
	apiKey,
	organizationId: 'org_echo',
});
const getBusiness = getBusinessOf();

/** Everything a run produced that a user or n8n's database could see, as one text. */
function produced(result: RunResult): string {
	return Object.values(producedBy(result)).join('\n');
}

/** Runs the node on the echoing API with `key`. */
async function run(key: string, parameters = getBusiness): Promise<RunResult> {
	return await runNode({ credentials: credentials(key), parameters });
}

/** Every piece of `key` `size` characters long. */
function pieces(key: string, size: number): string[] {
	return Array.from({ length: key.length - size + 1 }, (_, at) => key.slice(at, at + size));
}

/** The pieces of `key` that appear in `text`. */
function piecesIn(text: string, key: string, size = 3): string[] {
	return pieces(key, size).filter((piece) => text.includes(piece));
}

const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
const formEncoded = (key: string) => new URLSearchParams({ k: key }).toString().slice(2);
/** The key as a JSON string's inside: \" and \\. */
const jsonEscaped = (key: string) => JSON.stringify(key).slice(1, -1);
/** The key with every character written as \u00xx, as some JSON encoders write < > & and quotes. */
const unicodeEscaped = (key: string) =>
	[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** The encoded forms of a key an API may echo, each of which must not show. */
function encodedForms(key: string): string[] {
	const forms = [
		key,
		encodeURIComponent(key),
		lowerHex(encodeURIComponent(key)),
		formEncoded(key),
		jsonEscaped(key),
		unicodeEscaped(key),
	];
	return [...new Set(forms)];
}

/** None of the encoded forms of ODD_CANARY shows in what the run produced. */
function expectNoEncodedKey(result: RunResult): void {
	const text = produced(result);
	expect(encodedForms(ODD_CANARY).filter((form) => text.includes(form))).toEqual([]);
}

describe('a key cut by an excerpt leaves none of its characters', () => {
	it('a key cut by the 80-character excerpt leaves none of its characters', async () => {
		// The key starts at character 63 of the page: the excerpt's cut at 80 falls inside it.
		answer = (key) => ({ status: 200, type: 'text/html', body: `<p>${'-'.repeat(60)}${key}</p>` });
		const message = answered(GET, 200, NOT_JSON_REPLY);
		const runs = await runEachWay({
			credentials: credentials(PLAIN_CANARY),
			parameters: getBusiness,
		});
		for (const { shown, result } of runs) {
			expect(shown.startsWith(message)).toBe(true);
			expect(piecesIn(produced(result), PLAIN_CANARY)).toEqual([]);
		}
	});

	it('a key cut by the 80-character excerpt of a JSON value leaves none of its characters', async () => {
		// A JSON string, not an object: quoted in the error as JSON, cut at 80 characters.
		answer = (key) => ({ status: 200, body: JSON.stringify(`${'-'.repeat(60)}${key}`) });
		const result = await run(ODD_CANARY);
		const error = result.error as RunResult['error'] & { description?: string };
		expect(error?.message).toBe(
			answered(GET, 200, 'with JSON that is a string, not an object or a list'),
		);
		expect(error?.description).toMatch(/^Expected a JSON object or list, but the reply was "-+\[/);
		expect(piecesIn(produced(result), ODD_CANARY)).toEqual([]);
	});
});

describe('the key never appears encoded', () => {
	it('the key never appears URL-encoded in an output', async () => {
		answer = (key) => ({
			status: 201,
			body: '',
			headers: {
				location: `/customers/cust_9?a=${encodeURIComponent(key)}&b=${lowerHex(encodeURIComponent(key))}&c=${formEncoded(key)}`,
			},
		});
		const result = await run(ODD_CANARY, createAda());
		expect(result.error).toBeUndefined();
		expect(result.items[0]?.json.location).toBe(
			'/customers/cust_9?a=[redacted]&b=[redacted]&c=[redacted]',
		);
		expectNoEncodedKey(result);
	});

	it('the key never appears URL-encoded in an error that quotes the request', async () => {
		answer = (key) => ({
			status: 401,
			body: JSON.stringify({
				message: 'Unauthorized',
				err: `GET /api/business/biz_1?api_key=${encodeURIComponent(key)} (also ${formEncoded(key)})`,
			}),
		});
		const message = answered(
			GET,
			401,
			'"Unauthorized: GET /api/business/biz_1?api_key=[redacted] (also [redacted])"',
		);
		const runs = await runEachWay({
			credentials: credentials(ODD_CANARY),
			parameters: getBusiness,
		});
		for (const { shown, result } of runs) {
			expect(shown.startsWith(message)).toBe(true);
			expectNoEncodedKey(result);
		}
	});

	it('the key never appears JSON-escaped in the excerpt of a reply that is not JSON', async () => {
		answer = (key) => ({
			status: 200,
			type: 'text/plain',
			body: `{"key":"${jsonEscaped(key)}"} ${unicodeEscaped(key)}`,
		});
		const result = await run(ODD_CANARY);
		expect(result.error?.message).toBe(answered(GET, 200, NOT_JSON_REPLY));
		expect((result.error as { description?: string }).description).toMatch(
			/^Expected JSON but got content type text\/plain, starting "\{"key":"\[redacted\]"\} \[redacted\]"/,
		);
		expectNoEncodedKey(result);
	});

	it('the key never appears URL-encoded in a redirect the error names', async () => {
		answer = (key) => ({
			status: 302,
			body: '',
			headers: { location: `${url}/login/${encodeURIComponent(key)}/api/business/biz_1` },
		});
		const result = await run(ODD_CANARY);
		expect(
			result.error?.message.startsWith(failed(GET, `${API_ANSWERED} 302, redirecting to `)),
		).toBe(true);
		expectNoEncodedKey(result);
	});
});

describe('a password in the Base URL', () => {
	it('a percent-encoded password in the Base URL is redacted as the API received it, decoded', async () => {
		answer = (_key, request) => ({
			status: 401,
			body: JSON.stringify({ message: 'Unauthorized', err: `no user ${basicAuthOf(request)}` }),
		});
		const result = await runNode({
			credentials: credentials(PLAIN_CANARY, url.replace('//', '//someone:pa%40ss%2Bword@')),
			parameters: getBusiness,
		});
		expect(result.error?.message).toBe(
			answered(GET, 401, '"Unauthorized: no user someone:[redacted]"'),
		);
		expect(produced(result)).not.toContain('pa@ss+word');
	});

	it('a password that is not valid percent-encoding is redacted as typed, and in the Authorization header an API echoes', async () => {
		answer = (_key, request) => ({
			status: 401,
			body: JSON.stringify({
				message: 'Unauthorized',
				err: `bad ${String(request.headers.authorization)}`,
			}),
		});
		const result = await runNode({
			credentials: credentials(PLAIN_CANARY, url.replace('//', '//someone:100%-sure@')),
			parameters: getBusiness,
		});
		expect(result.error?.message).toBe(answered(GET, 401, '"Unauthorized: bad Basic [redacted]"'));
		expect(produced(result)).not.toContain('100%-sure');
	});
});

describe('a key holding a quote or backslash', () => {
	it('a key holding a quote or backslash is redacted from a successful output', async () => {
		answer = (key) => ({
			status: 200,
			body: JSON.stringify({
				content: { business: { id: 'biz_1', note: `seen ${key}`, [key]: 1 } },
			}),
		});
		const result = await run(ODD_CANARY);
		expect(result.error).toBeUndefined();
		expect(result.items[0]?.json).toEqual({
			id: 'biz_1',
			note: 'seen [redacted]',
			'[redacted]': 1,
		});
		expect(piecesIn(produced(result), ODD_CANARY, 4)).toEqual([]);
	});

	it('a key holding a quote or backslash is redacted from an API error text', async () => {
		answer = (key) => ({
			status: 403,
			body: JSON.stringify({ message: 'Forbidden', err: `key ${key} may not read this` }),
		});
		const result = await run(ODD_CANARY);
		expect(result.error?.message).toBe(
			answered(GET, 403, '"Forbidden: key [redacted] may not read this"'),
		);
		expect(piecesIn(produced(result), ODD_CANARY, 4)).toEqual([]);
	});
});

describe('an invisible character in the Base URL', () => {
	answer = () => ({
		status: 200,
		body: JSON.stringify({ content: { business: { id: 'biz_1' } } }),
	});

	it.each<[string, (url: string) => string, string]>([
		[
			'a zero-width space after the host',
			(u) => `${u}/\u200b`,
			'a zero-width space (U+200B) at position 24',
		],
		[
			'a zero-width space in front',
			(u) => `\u200b${u}`,
			'a zero-width space (U+200B) at position 1',
		],
		[
			'a soft hyphen in the host',
			(u) => u.replace('127.0.0', '127.0\u00ad.0'),
			'a soft hyphen (U+00AD) at position 13',
		],
		['a word joiner', (u) => `${u}\u2060`, 'a word joiner (U+2060) at position 23'],
		[
			'a byte order mark inside',
			(u) => u.replace('//', '//\ufeff'),
			'a byte order mark (U+FEFF) at position 8',
		],
		['a zero-width joiner', (u) => `${u}/\u200d`, 'a zero-width joiner (U+200D) at position 24'],
		[
			'a left-to-right mark',
			(u) => `${u}/\u200e`,
			'an invisible formatting character (U+200E) at position 24',
		],
		['a control character', (u) => `${u}/\u0085`, 'a control character (U+0085) at position 24'],
	])(
		'an invisible character in the Base URL is refused before anything is sent, naming it: %s',
		async (_title, form, named) => {
			const baseUrl = form(url);
			// The positions above assume "http://127.0.0.1:" and a five-digit port.
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d{5}$/);
			const refused = credentials(PLAIN_CANARY, baseUrl);
			const { fix } = checkCredential({ ...refused }) as CredentialProblem;
			const problem = `The Base URL ${IN_CREDENTIAL} "${baseUrl}" contains ${named}.${EXAMPLE}`;
			for (const { onError, shown } of await runEachWay({
				credentials: refused,
				parameters: getBusiness,
			})) {
				expect(shown).toBe(onError ? `${problem}. ${fix}` : problem);
			}
			expect(api.seen).toEqual([]);
		},
	);

	it("an invisible character in the Base URL fails the credential's Test, and nothing is sent", async () => {
		for (const baseUrl of [`${url}/\u200b`, `\u200b${url}`, `${url}/\u00ad`, `${url}\u2060`]) {
			expect(await testCredential(credentials(PLAIN_CANARY, baseUrl))).toEqual({
				status: 'Error',
				message: 'Invalid URL',
			});
		}
		expect(api.seen).toEqual([]);
	});

	it('an invisible formatting character in the Organization ID is named as one, with its position', async () => {
		const result = await runNode({
			credentials: { ...credentials(PLAIN_CANARY), organizationId: 'org\u2062echo' },
			parameters: getBusiness,
		});
		expect(result.error?.message).toBe(
			`The Organization ID ${IN_CREDENTIAL} contains an invisible formatting character (U+2062) at position 4`,
		);
		expect(api.seen).toEqual([]);
	});
});

describe('redaction reaches every string of a reply, and cuts nothing but the key', () => {
	it('the key as the only field name of an object is redacted', async () => {
		answer = (key) => ({
			status: 200,
			body: JSON.stringify({ content: { business: { id: 'biz_1', keys: { [key]: true } } } }),
		});
		const result = await run(PLAIN_CANARY);
		expect(result.error).toBeUndefined();
		expect(result.items[0]?.json).toEqual({ id: 'biz_1', keys: { '[redacted]': true } });
		expect(piecesIn(produced(result), PLAIN_CANARY, 4)).toEqual([]);
	});

	it('the key in one record of a list is redacted, and the other records are kept', async () => {
		answer = (key) => ({
			status: 200,
			body: JSON.stringify([
				{ id: 'biz_1', name: 'Echo', note: `made with ${key}` },
				{ id: 'biz_2', name: 'Quiet' },
			]),
		});
		const result = await runNode({
			credentials: credentials(PLAIN_CANARY),
			parameters: { resource: 'business', operation: 'getAll', returnAll: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([
			{ id: 'biz_1', name: 'Echo', note: 'made with [redacted]' },
			{ id: 'biz_2', name: 'Quiet' },
		]);
		expect(piecesIn(produced(result), PLAIN_CANARY, 4)).toEqual([]);
	});

	it('text one character away from the key is kept: + stands for a space only, \\x for a quote, backslash or slash only', async () => {
		// The key with its second character written as + (form-encoding's space), and with a
		// backslash before it (JSON's escape): neither is the key, so neither is cut.
		const plus = `${PLAIN_CANARY[0]}+${PLAIN_CANARY.slice(2)}`;
		const escaped = `${PLAIN_CANARY[0]}\\${PLAIN_CANARY.slice(1)}`;
		answer = () => ({
			status: 200,
			body: JSON.stringify({ content: { business: { id: 'biz_1', plus, escaped } } }),
		});
		const result = await run(PLAIN_CANARY);
		expect(result.error).toBeUndefined();
		expect(result.items[0]?.json).toEqual({ id: 'biz_1', plus, escaped });
	});
});
