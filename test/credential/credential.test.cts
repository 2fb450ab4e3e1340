/** The credential's Test button (credentials/BusinessCrmApi.credentials.ts) and its headers. */
import { Workflow, type IDataObject } from 'n8n-workflow';
import { parseBaseUrl } from '../../nodes/BusinessCrm/credential/baseUrl';
import {
	NO_HTTPS,
	NO_HTTPS_HELP,
	PLAIN_HTTP_HELP,
	TLS_FAILED,
} from '../../nodes/BusinessCrm/api/failures';
import { BusinessCrmApi } from '../../credentials/BusinessCrmApi.credentials';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	loadNodeType,
	NODE_NAME,
	NODE_TYPE,
	onlyType,
	runNode,
	savedNode,
	testCredential,
	type CrmCredentials,
} from '../helpers/harness.cjs';
import { credentialsFor, failed, requestsTo } from '../helpers/fixtures.cjs';
import { always, pathsOf, SCRIPTED_KEY, withApi, type Answer } from '../helpers/scripted-api.cjs';

/** The message of the Test's rule for `status`, as n8n shows it in place of the API's reply. */
function ruleMessage(status: number): string | undefined {
	const rules = (new BusinessCrmApi().test.rules ?? []) as Array<{
		properties: { value?: number; message?: string };
	}>;
	return rules.find((rule) => rule.properties.value === status)?.properties.message;
}

const CONNECTED = { status: 'OK', message: 'Connection successful!' };
const TEST_PATH = '/api/public/v1/test-api-key';
const CUSTOMERS = '/api/public/v1/customers';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.clearLog());

/** The sandbox's credential, with what else is given. */
const credentials = (changes: Partial<CrmCredentials> = {}): CrmCredentials => ({
	...credentialsFor(sandbox),
	...changes,
});
const getOneCustomer = { resource: 'customer', operation: 'getAll', limit: 1 };

describe('Business CRM API credential test (GET /api/public/v1/test-api-key)', () => {
	it('passes with a valid key and sends both headers to the test endpoint', async () => {
		expect(await testCredential(credentials())).toEqual(CONNECTED);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe(TEST_PATH);
		expect(request.headers['x-api-key']).toBe(sandbox.apiKey);
		expect(request.headers['x-organization-id']).toBe(sandbox.organizationId);
		expect(request.status).toBe(200);
	});
});

describe('Business CRM API credential test failures', () => {
	it.each<[string, () => string, number, () => IDataObject]>([
		[
			'a wrong key, which the API refuses with 401: what to do',
			() => 'not-a-key',
			401,
			() => ({ message: 'Unauthorized', err: 'Invalid or missing API key' }),
		],
		[
			'a key of another organization, which the API refuses with 403: the Organization ID',
			() => sandbox.otherOrgApiKey,
			403,
			() => ({
				message: 'Forbidden',
				err: `API key does not belong to organization ${sandbox.organizationId}`,
			}),
		],
	])('fails on %s', async (_title, apiKey, status, apiBody) => {
		const result = await testCredential(credentials({ apiKey: apiKey() }));
		expect(result).toMatchObject({ status: 'Error', message: ruleMessage(status) });
		expect(result.apiBody).toEqual(apiBody());
	});

	it.each([`URL/`, `URL///`, ` URL `])('accepts the Base URL written as %s', async (form) => {
		const result = await testCredential(credentials({ baseUrl: form.replace('URL', sandbox.url) }));
		expect(result).toEqual(CONNECTED);
	});

	it('repairs a mistyped scheme', async () => {
		const baseUrl = sandbox.url.replace('http://', 'http//');
		expect((await testCredential(credentials({ baseUrl }))).status).toBe('OK');
	});

	it('fails on an unusable Base URL without sending the key anywhere', async () => {
		// An address an HTTP client could reach: only the refusal keeps the key from the sandbox.
		const result = await testCredential(credentials({ baseUrl: `${sandbox.url}/?tenant=1` }));
		// n8n shows its own words here; the node explains the Base URL when it runs (values.test.cts).
		expect(result).toEqual({ status: 'Error', message: 'Invalid URL' });
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('the Test button repairs the Base URL as the node does', () => {
	const forms: Array<[string, (url: string) => string]> = [
		['a trailing slash', (url) => `${url}/`],
		['spaces and slashes', (url) => `  ${url}/// `],
		['"http//"', (url) => url.replace('http://', 'http//')],
		['"http:/"', (url) => url.replace('http://', 'http:/')],
		['"htttp://"', (url) => url.replace('http://', 'htttp://')],
		['an upper-case scheme', (url) => url.replace('http://', 'HTTP://')],
		['a copied /api/public/v1', (url) => `${url}/api/public/v1`],
		['a copied /api/public/v1/', (url) => `${url}/API/public/v1/`],
	];

	it.each(forms)('%s: the test and the node reach the same address', async (_title, form) => {
		const typed = credentials({ baseUrl: form(sandbox.url) });
		expect(parseBaseUrl(typed.baseUrl).url).toBe(sandbox.url);
		expect(await testCredential(typed)).toEqual(CONNECTED);
		const { error } = await runNode({ credentials: typed, parameters: getOneCustomer });
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((request) => [request.path, request.status])).toEqual([
			[TEST_PATH, 200],
			[CUSTOMERS, 200],
		]);
	});

	it.each([
		['another scheme', 'ftp://127.0.0.1:PORT'],
		['a query string', 'http://127.0.0.1:PORT/?tenant=1'],
		['a fragment', 'http://127.0.0.1:PORT#api'],
		['a space inside', 'http://127.0.0.1 :PORT'],
		['no host', 'http://'],
	])(
		'a Base URL the node refuses (%s) fails the test, and nothing is sent',
		async (_title, form) => {
			const typed = credentials({ baseUrl: form.replace('PORT', String(sandbox.port)) });
			expect(parseBaseUrl(typed.baseUrl).url).toBeUndefined();
			expect(await testCredential(typed)).toEqual({ status: 'Error', message: 'Invalid URL' });
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('a Base URL without a scheme means https in both: nothing reaches the http sandbox', async () => {
		const typed = credentials({ baseUrl: `127.0.0.1:${sandbox.port}` });
		expect(parseBaseUrl(typed.baseUrl).url).toBe(`https://127.0.0.1:${sandbox.port}`);
		expect((await testCredential(typed)).status).toBe('Error');
		const { error } = await runNode({ credentials: typed, parameters: getOneCustomer });
		expect(error?.message).toBe(failed('Get many customers', NO_HTTPS));
		expect(error?.description).toBe(NO_HTTPS_HELP);
		expect(sandbox.requests).toEqual([]);
	});

	it('https:// typed in front of a plain-HTTP server: the handshake failure names scheme and port', async () => {
		const { error } = await runNode({
			credentials: credentials({ baseUrl: `https://127.0.0.1:${sandbox.port}` }),
			parameters: getOneCustomer,
		});
		expect(error?.message).toMatch(
			new RegExp(
				`^${failed('Get many customers', TLS_FAILED)} \\((EPROTO|ERR_SSL_WRONG_VERSION_NUMBER|wrong version number)\\)$`,
			),
		);
		expect(error?.description).toBe(PLAIN_HTTP_HELP);
		expect(sandbox.requests).toEqual([]);
	});
});

describe('the Test button does not follow a redirect', () => {
	// Literal statuses: the Test's rules are built from a list in the credential's module.
	it.each([301, 302, 303, 307, 308])(
		'%i to another host: that host receives nothing, and the message says why',
		async (status) =>
			await withApi(always(200, '{}'), async (other) => {
				const redirect: Answer = (_request, url, response) => {
					response.writeHead(status, { location: `${other.url}${url.pathname}` });
					response.end();
				};
				await withApi(redirect, async (api) => {
					const result = await testCredential({
						...api.credentials,
						apiKey: ['redirect', 'canary', '1234'].join('-'),
					});
					expect(result).toMatchObject({ status: 'Error', message: ruleMessage(status) });
					expect(result.message).toContain(`(HTTP ${status})`);
					expect(pathsOf(api)).toEqual([TEST_PATH]);
					expect(other.urls).toEqual([]);
				});
			}),
	);
});

describe('the headers a request of the node carries', () => {
	it('sends the credential headers and nothing else the spec does not show', async () => {
		sandbox.seedCustomers(2);
		await runNode({
			credentials: credentials(),
			parameters: { ...getOneCustomer, returnAll: true },
		});
		const [request] = requestsTo(sandbox, CUSTOMERS);
		expect(request.headers['x-api-key']).toBe(sandbox.apiKey);
		expect(request.headers['x-organization-id']).toBe(sandbox.organizationId);
		expect(request.headers.accept).toBe('application/json');
		expect(request.body).toBeUndefined();
	});
});

describe("the credential's own trimming", () => {
	it('the headers it makes carry the key and organization ID without the pasted spaces', () => {
		const credential = new BusinessCrmApi();
		const node = savedNode(NODE_NAME, NODE_TYPE);
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: onlyType(loadNodeType()),
		});
		// As n8n's CredentialsHelper resolves generic authentication, before any HTTP client sees it.
		const headers = Object.fromEntries(
			Object.entries(credential.authenticate.properties.headers ?? {}).map(([name, value]) => [
				name,
				workflow.expression.getSimpleParameterValue(
					node,
					value as string,
					'internal',
					{ $credentials: { apiKey: `  ${SCRIPTED_KEY}\t`, organizationId: ' org_1 \n' } },
					undefined,
					'',
				),
			]),
		);
		expect(headers).toEqual({ 'X-API-Key': SCRIPTED_KEY, 'X-Organization-ID': 'org_1' });
	});
});
