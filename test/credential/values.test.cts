/**
 * Which API keys, organization IDs and Base URLs the node uses as typed, and how it names the ones
 * it cannot (credential/credential.ts, characters.ts and baseUrl.ts).
 */
import {
	BASE_URL_FIX,
	checkCredential,
	HIDDEN_CHARACTER,
	IN_CREDENTIAL,
	NO_DOMAINS_LISTED,
} from '../../nodes/BusinessCrm/credential/credential';
import { EMPTY_BASE_URL, EXAMPLE } from '../../nodes/BusinessCrm/credential/baseUrl';
import { type Sandbox } from '../sandbox/server.cjs';
import { SCRIPTED_KEY, withApi } from '../helpers/scripted-api.cjs';
import { runNode, type CrmCredentials } from '../helpers/harness.cjs';
import { byId, credentialsFor, getBusinessOf, useSandbox } from '../helpers/fixtures.cjs';

const BASE_URL = 'https://api.example.com';
const check = (apiKey: unknown, organizationId: unknown = 'org_1') =>
	checkCredential({ baseUrl: BASE_URL, apiKey, organizationId } as never);
/** The fix for a header value holding a character that was pasted with it. */
const pasteAgain = (label: string) =>
	`${HIDDEN_CHARACTER} Open the credential and paste the ${label} again as a single line, copied from its source.`;
/** The problem and fix for a credential field that is empty. */
const empty = (label: string) => ({
	problem: `The ${label} ${IN_CREDENTIAL} is empty`,
	fix: `Open the credential and enter the ${label}.`,
});

describe('every visible ASCII character travels in a header as typed', () => {
	it('"!" and "~", the first and last of them, are accepted in a key and an organization ID', () => {
		expect(check('!key~0123456789~', '!org~')).toMatchObject({
			apiKey: '!key~0123456789~',
			organizationId: '!org~',
		});
	});
});

describe('the shortest API key', () => {
	// Literal lengths: MIN_API_KEY_LENGTH is a module constant, which mutation testing leaves alone.
	it('a key of 8 characters is accepted', () => {
		expect(check('12345678')).toMatchObject({ apiKey: '12345678' });
	});

	it('a key of 7 characters is refused, and the fix names the 8 needed', () => {
		expect(check('1234567')).toEqual({
			problem: `The API Key ${IN_CREDENTIAL} has only 7 characters, too few for an API key`,
			fix: 'Open the credential and paste the whole API key (at least 8 characters).',
		});
	});
});

describe('a character that cannot travel as typed is named, with its position', () => {
	// Literal names: NAMED_CHARACTERS is a module constant, which mutation testing leaves alone.
	it.each([
		['U+0001', '\u0001', 'a control character (U+0001)'],
		['U+001F', '\u001f', 'a control character (U+001F)'],
		['U+007F (DEL)', '\u007f', 'a control character (U+007F)'],
		['U+0020 (space)', ' ', 'a space (U+0020)'],
		['U+00E9 (é)', '\u00e9', 'the non-ASCII character "\u00e9" (U+00E9)'],
		['U+0080', '\u0080', 'a control character (U+0080)'],
		['a tab', '\t', 'a tab (U+0009)'],
		['a line feed', '\n', 'a line break (U+000A)'],
		['a carriage return', '\r', 'a line break (U+000D)'],
		['a no-break space', '\u00a0', 'a no-break space (U+00A0)'],
		['a soft hyphen', '\u00ad', 'a soft hyphen (U+00AD)'],
		['a zero-width space', '\u200b', 'a zero-width space (U+200B)'],
		['a zero-width non-joiner', '\u200c', 'a zero-width non-joiner (U+200C)'],
		['a zero-width joiner', '\u200d', 'a zero-width joiner (U+200D)'],
		['a word joiner', '\u2060', 'a word joiner (U+2060)'],
		['a byte order mark', '\ufeff', 'a byte order mark (U+FEFF)'],
		['a control character without a name of its own', '\u0085', 'a control character (U+0085)'],
		['an invisible formatting character', '\u2062', 'an invisible formatting character (U+2062)'],
		['an unusual space', '\u3000', 'an unusual space (U+3000)'],
	])('%s', (_label, character, named) => {
		expect(check(`abcd${character}efgh1234`)).toEqual({
			problem: `The API Key ${IN_CREDENTIAL} contains ${named} at position 5`,
			fix: pasteAgain('API Key'),
		});
	});
});

describe('a missing value is empty, not text', () => {
	it.each([undefined, null])('an API key that is %s', (apiKey) => {
		expect(check(apiKey)).toEqual(empty('API Key'));
	});

	it('an organization ID that is null', () => {
		expect(check('k'.repeat(20), null)).toEqual(empty('Organization ID'));
	});
});

describe('Allowed Domains, as the credential check reads them', () => {
	const restricted = (baseUrl: string, allowedDomains: unknown) =>
		checkCredential({
			baseUrl,
			apiKey: 'key-0123456789',
			organizationId: 'org_1',
			allowedHttpRequestDomains: 'domains',
			allowedDomains,
		} as never);

	it('a host is compared regardless of capitals, in the Base URL and in the list', () => {
		expect(restricted('https://API.Example.com', 'api.example.com')).not.toHaveProperty('problem');
		expect(restricted('https://api.example.com', 'API.EXAMPLE.COM')).not.toHaveProperty('problem');
	});

	it('a host written with its trailing dot is the same host, in the Base URL and in the list', () => {
		expect(restricted('https://api.example.com./', 'api.example.com')).not.toHaveProperty(
			'problem',
		);
		expect(restricted('https://api.example.com', 'api.example.com.')).not.toHaveProperty('problem');
	});

	it('a host not on the list is refused, naming the host, the list and the fix', () => {
		expect(restricted('https://api.example.com', 'other.example.com, *.example.org')).toEqual({
			problem: `The Base URL's host api.example.com is not among the Allowed Domains of the Business CRM credential (other.example.com, *.example.org), so the node sends nothing`,
			fix: 'Open the credential and add api.example.com to Allowed Domains, or set Allowed HTTP Request Domains to All.',
		});
	});

	it('Specific Domains with no list at all is an empty list: refused, with the host to add', () => {
		expect(restricted('https://api.example.com', undefined)).toEqual({
			problem: NO_DOMAINS_LISTED,
			fix: 'Open the credential and add api.example.com to Allowed Domains, or set Allowed HTTP Request Domains to All.',
		});
	});
});

describe('the Base URL is read as people type and paste it', () => {
	// unknown: a credential saved without the field, or by hand, need not hold text.
	const read = (baseUrl: unknown) =>
		checkCredential({ baseUrl, apiKey: 'key-0123456789', organizationId: 'org_1' } as never);
	const THE_BASE_URL = `The Base URL ${IN_CREDENTIAL}`;

	it.each([
		['api.example.com/http/v2', 'https://api.example.com/http/v2'],
		['hhttps://api.example.com', 'https://api.example.com'],
		['htttp://api.example.com', 'http://api.example.com'],
		['httpps://api.example.com', 'https://api.example.com'],
		['https://api.example.com/api/public/v1', 'https://api.example.com'],
		['https://api.example.com/api/public/v1//', 'https://api.example.com'],
		// Only a trailing copy of the API's prefix is the API's; a longer path is the user's.
		[
			'https://api.example.com/api/public/v1/tenant',
			'https://api.example.com/api/public/v1/tenant',
		],
		// Visible, though not ASCII: the Base URL is not a header.
		['https://api.example.com/\u00e9', 'https://api.example.com/\u00e9'],
	])('%j is used as %j', (typed, used) => {
		expect(read(typed)).toMatchObject({ baseUrl: used });
	});

	it.each([
		['api.example.com/next?to=ftp://x', 'contains a query string or fragment (? or #).'],
		['https://:8080/http://api.example.com', 'has no host name.'],
		// A space is left to the spaces check; every other invisible character is named.
		['https://api.example.com /x', 'contains spaces.'],
		['https://api.example.com\u3000/x', 'contains an unusual space (U+3000) at position 24.'],
	])('%j is refused: %s', (typed, reason) => {
		expect(read(typed)).toMatchObject({
			problem: `${THE_BASE_URL} "${typed}" ${reason}${EXAMPLE}`,
		});
	});

	it('a Base URL that is missing or not text is empty, and says so', () => {
		for (const baseUrl of [undefined, null, 42]) {
			expect(read(baseUrl)).toMatchObject({
				problem: EMPTY_BASE_URL.replace('The Base URL', THE_BASE_URL) + EXAMPLE,
			});
		}
	});

	it('a password typed in it is never quoted, with or without a scheme', () => {
		expect(read('admin:s3cret@api.example.com/?x=1')).toMatchObject({
			problem: expect.stringContaining('"admin@api.example.com/?x=1"'),
		});
		expect(read('https://admin:s3cret@api.example.com/?x=1')).toMatchObject({
			problem: expect.stringContaining('"https://admin@api.example.com/?x=1"'),
		});
		// A colon and an @ further on in the path are not a password, and are quoted as typed.
		expect(read('https://api.example.com/files/a:b@c?x=1')).toMatchObject({
			problem: expect.stringContaining('"https://api.example.com/files/a:b@c?x=1"'),
		});
	});
});

describe('a Base URL typed without a scheme is sent as https', () => {
	it('the credential the requests use starts with https://', () => {
		expect(
			checkCredential({ baseUrl: 'api.example.com/', apiKey: SCRIPTED_KEY, organizationId: 'o' }),
		).toMatchObject({ baseUrl: 'https://api.example.com' });
	});

	it('so an API that speaks only http never receives the request', async () =>
		await withApi(undefined, async (api) => {
			const { error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				credentials: { ...api.credentials, baseUrl: api.url.replace('http://', '') },
			});
			expect(error).toBeDefined();
			expect(api.urls).toEqual([]);
		}));
});

describe('the credential is checked before anything is sent', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, {}, (started) => (sandbox = started));
	const run = (
		credentials: Partial<CrmCredentials>,
		options: { items?: Array<Record<string, unknown>>; onError?: 'continueRegularOutput' } = {},
	) =>
		runNode({
			credentials: { ...credentialsFor(sandbox), ...credentials },
			parameters: getBusinessOf(sandbox.businesses[0].id),
			items: options.items as never,
			onError: options.onError,
		});

	type Case = [string, (s: Sandbox) => Partial<CrmCredentials>, string, string];
	/** A Base URL refused: the problem after "The Base URL in the … credential". */
	const baseUrlCase = (title: string, credentials: Case[1], problem: string): Case => [
		title,
		credentials,
		`The Base URL ${IN_CREDENTIAL} ${problem}${EXAMPLE}`,
		BASE_URL_FIX,
	];
	/** A header value refused: empty, or holding a character that was pasted with it. */
	const fieldCase = (title: string, credentials: Case[1], label: string, problem: string): Case => [
		title,
		credentials,
		`The ${label} ${IN_CREDENTIAL} ${problem}`,
		problem === 'is empty' ? empty(label).fix : pasteAgain(label),
	];
	const cases: Case[] = [
		baseUrlCase(
			'a Base URL with another scheme (ftp)',
			(s) => ({ baseUrl: `ftp://127.0.0.1:${s.port}` }),
			'"ftp://127.0.0.1:PORT" does not start with http:// or https://.',
		),
		baseUrlCase(
			'a Base URL with a query string',
			(s) => ({ baseUrl: `${s.url}/?tenant=1` }),
			'"http://127.0.0.1:PORT/?tenant=1" contains a query string or fragment (? or #).',
		),
		baseUrlCase(
			'a Base URL with a fragment',
			(s) => ({ baseUrl: `${s.url}#api` }),
			'"http://127.0.0.1:PORT#api" contains a query string or fragment (? or #).',
		),
		baseUrlCase('an empty Base URL', () => ({ baseUrl: '' }), 'is empty.'),
		baseUrlCase('a Base URL of spaces only', () => ({ baseUrl: '   ' }), 'is empty.'),
		baseUrlCase(
			'a Base URL without a host',
			() => ({ baseUrl: 'http://' }),
			'"http://" has no host name.',
		),
		baseUrlCase(
			'a Base URL with a space inside',
			(s) => ({ baseUrl: `http://127.0.0.1 :${s.port}` }),
			'"http://127.0.0.1 :PORT" contains spaces.',
		),
		fieldCase(
			'an API key with a line break inside',
			(s) => ({ apiKey: `${s.apiKey.slice(0, 12)}\n${s.apiKey.slice(12)}` }),
			'API Key',
			'contains a line break (U+000A) at position 13',
		),
		fieldCase(
			'an API key with CR LF inside',
			(s) => ({ apiKey: `${s.apiKey.slice(0, 12)}\r\n${s.apiKey.slice(12)}` }),
			'API Key',
			'contains a line break (U+000D) at position 13',
		),
		fieldCase('an empty API key', () => ({ apiKey: '' }), 'API Key', 'is empty'),
		fieldCase('an API key of whitespace only', () => ({ apiKey: ' \n ' }), 'API Key', 'is empty'),
		fieldCase(
			'an organization ID with a line break inside',
			(s) => ({
				organizationId: `${s.organizationId.slice(0, 6)}\n${s.organizationId.slice(6)}`,
			}),
			'Organization ID',
			'contains a line break (U+000A) at position 7',
		),
		fieldCase(
			'an empty organization ID',
			() => ({ organizationId: '' }),
			'Organization ID',
			'is empty',
		),
	];

	it.each(cases)('refuses %s', async (_title, credentials, message, description) => {
		const { items, error } = await run(credentials(sandbox));
		expect(items).toEqual([]);
		expect(error?.message).toBe(message.replace('PORT', String(sandbox.port)));
		expect(error?.description).toBe(description);
		expect(error?.context.itemIndex).toBe(0);
		expect(sandbox.requests).toEqual([]);
	});

	it('refuses it on every item with Continue On Fail, each error item paired', async () => {
		const { items, error } = await run(
			{ baseUrl: `ftp://127.0.0.1:${sandbox.port}` },
			{
				items: [{}, {}],
				onError: 'continueRegularOutput',
			},
		);
		expect(error).toBeUndefined();
		const message = `The Base URL ${IN_CREDENTIAL} "ftp://127.0.0.1:${sandbox.port}" does not start with http:// or https://.${EXAMPLE}`;
		// A Continue On Fail error item: the message, then the advice; only a person can fix it.
		const json = { error: `${message}. ${BASE_URL_FIX}`, errorType: 'configuration' };
		expect(items).toEqual([
			{ json, pairedItem: { item: 0 } },
			{ json, pairedItem: { item: 1 } },
		]);
		expect(sandbox.requests).toEqual([]);
	});

	it.each<[string, (s: Sandbox) => Partial<CrmCredentials>]>([
		['a trailing slash', (s) => ({ baseUrl: `${s.url}/` })],
		['several trailing slashes', (s) => ({ baseUrl: `${s.url}///` })],
		['"http//" without the colon', (s) => ({ baseUrl: `http//127.0.0.1:${s.port}` })],
		['"http:/" with one slash', (s) => ({ baseUrl: `http:/127.0.0.1:${s.port}` })],
		['an upper-case scheme', (s) => ({ baseUrl: `HTTP://127.0.0.1:${s.port}` })],
		['a copied /api/public/v1', (s) => ({ baseUrl: `${s.url}/api/public/v1` })],
		['a copied /api/public/v1/', (s) => ({ baseUrl: `${s.url}/api/public/v1/` })],
		['surrounding spaces and a line break', (s) => ({ baseUrl: `  ${s.url}/ \n` })],
		['an API key with surrounding spaces', (s) => ({ apiKey: ` ${s.apiKey}\n` })],
		[
			'an organization ID with surrounding spaces',
			(s) => ({ organizationId: `\t${s.organizationId} ` }),
		],
	])('repairs %s', async (_title, credentials) => {
		const business = sandbox.businesses[0];
		const { items, error } = await run(credentials(sandbox));
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: business, pairedItem: { item: 0 } }]);
		expect(
			sandbox.requests.map((request) => [
				request.method,
				request.path,
				request.headers['x-api-key'],
				request.headers['x-organization-id'],
				request.status,
			]),
		).toEqual([
			['GET', `/api/business/${business.id}`, sandbox.apiKey, sandbox.organizationId, 200],
		]);
	});
});
