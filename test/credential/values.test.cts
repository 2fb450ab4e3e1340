/** Which API keys and organization IDs the node sends as typed, and how it names the ones it cannot. */
import { checkCredential, MIN_API_KEY_LENGTH } from '../../nodes/BusinessCrm/credential/credential';
import { startApi, json, stop, SCRIPTED_KEY } from '../helpers/scripted-api.cjs';
import { runNode } from '../helpers/harness.cjs';
import { byId } from '../helpers/fixtures.cjs';

const BASE_URL = 'https://api.example.com';
const check = (apiKey: unknown, organizationId: unknown = 'org_1') =>
	checkCredential({ baseUrl: BASE_URL, apiKey, organizationId } as never);

describe('every visible ASCII character travels in a header as typed', () => {
	it('"!" and "~", the first and last of them, are accepted in a key and an organization ID', () => {
		expect(check('!key~0123456789~', '!org~')).toMatchObject({
			apiKey: '!key~0123456789~',
			organizationId: '!org~',
		});
	});

	it(`a key of exactly ${MIN_API_KEY_LENGTH} characters is accepted; one fewer is refused`, () => {
		const key = 'k'.repeat(MIN_API_KEY_LENGTH);
		expect(check(key)).toMatchObject({ apiKey: key });
		expect(check(key.slice(1))).toEqual({
			problem: `The API Key in the Business CRM credential has only ${MIN_API_KEY_LENGTH - 1} characters, too few for an API key`,
			fix: `Open the credential and paste the whole API key (at least ${MIN_API_KEY_LENGTH} characters).`,
		});
	});
});

describe('a character that cannot travel as typed is named, with its position', () => {
	const PASTE_AGAIN =
		'A hidden or unusual character was pasted with it. Open the credential and paste the API Key again as a single line, copied from its source.';
	it.each([
		['U+0001', '\u0001', 'a control character (U+0001)'],
		['U+001F', '\u001f', 'a control character (U+001F)'],
		['U+007F (DEL)', '\u007f', 'a control character (U+007F)'],
		['U+0020 (space)', ' ', 'a space (U+0020)'],
		['U+00E9 (é)', '\u00e9', 'the non-ASCII character "\u00e9" (U+00E9)'],
		['U+0080', '\u0080', 'a control character (U+0080)'],
	])('%s', (_label, character, named) => {
		expect(check(`abcd${character}efgh1234`)).toEqual({
			problem: `The API Key in the Business CRM credential contains ${named} at position 5`,
			fix: PASTE_AGAIN,
		});
	});
});

describe('a missing value is empty, not text', () => {
	it.each([undefined, null])('an API key that is %s', (apiKey) => {
		expect(check(apiKey)).toEqual({
			problem: 'The API Key in the Business CRM credential is empty',
			fix: 'Open the credential and enter the API Key.',
		});
	});

	it('an organization ID that is null', () => {
		expect(check('k'.repeat(20), null)).toEqual({
			problem: 'The Organization ID in the Business CRM credential is empty',
			fix: 'Open the credential and enter the Organization ID.',
		});
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

	it('Specific Domains with no list at all is an empty list: refused, with the host to add', () => {
		expect(restricted('https://api.example.com', undefined)).toEqual({
			problem:
				'The Business CRM credential allows Specific Domains but lists none, so the node sends nothing',
			fix: 'Open the credential and add api.example.com to Allowed Domains, or set Allowed HTTP Request Domains to All.',
		});
	});
});

describe('the Base URL is read as people type and paste it', () => {
	// unknown: a credential saved without the field, or by hand, need not hold text.
	const read = (baseUrl: unknown) =>
		checkCredential({ baseUrl, apiKey: 'key-0123456789', organizationId: 'org_1' } as never);

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
	])('%j is used as %j', (typed, used) => {
		expect(read(typed)).toMatchObject({ baseUrl: used });
	});

	it.each([
		['api.example.com/next?to=ftp://x', 'contains a query string or fragment (? or #).'],
		['https://:8080/http://api.example.com', 'has no host name.'],
	])('%j is refused: %s', (typed, reason) => {
		expect(read(typed)).toMatchObject({
			problem: `The Base URL in the Business CRM credential "${typed}" ${reason} Enter the API address only, e.g. https://api.example.com`,
		});
	});

	it('a Base URL that is missing or not text is empty, and says so', () => {
		for (const baseUrl of [undefined, null, 42]) {
			expect(read(baseUrl)).toMatchObject({
				problem:
					'The Base URL in the Business CRM credential is empty. Enter the API address only, e.g. https://api.example.com',
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

	it('so an API that speaks only http never receives the request', async () => {
		const api = await startApi((_request, _url, response) => json(response, 200, {}));
		try {
			const { error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				credentials: {
					...api.credentials,
					baseUrl: api.credentials.baseUrl.replace('http://', ''),
				},
			});
			expect(error).toBeDefined();
			expect(api.urls).toEqual([]);
		} finally {
			await stop(api.server);
		}
	});
});
