import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseBaseUrl } from '../../nodes/BusinessCrm/credential/baseUrl';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { runNode, testCredential } from '../helpers/harness.cjs';
import { SCRIPTED_KEY } from '../helpers/scripted-api.cjs';
import { Workflow, type INode } from 'n8n-workflow';
import { BusinessCrm } from '../../nodes/BusinessCrm/BusinessCrm.node';
import { BusinessCrmApi } from '../../credentials/BusinessCrmApi.credentials';

describe('Business CRM API credential test (GET /api/public/v1/test-api-key)', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.clearLog());

	const good = () => ({
		baseUrl: sandbox.url,
		apiKey: sandbox.apiKey,
		organizationId: sandbox.organizationId,
	});

	it('passes with a valid key and sends both headers to the test endpoint', async () => {
		expect(await testCredential(good())).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/public/v1/test-api-key');
		expect(request.headers['x-api-key']).toBe(sandbox.apiKey);
		expect(request.headers['x-organization-id']).toBe(sandbox.organizationId);
		expect(request.status).toBe(200);
	});
});

describe('Business CRM API credential test failures', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => await sandbox.close());

	it('fails on a wrong key with a message that says what to do, after the API said 401', async () => {
		const result = await testCredential({
			baseUrl: sandbox.url,
			apiKey: 'not-a-key',
			organizationId: sandbox.organizationId,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API rejected the API key \(HTTP 401/);
		expect(result.message).toContain('organization administrator');
		expect(result.apiBody).toEqual({ message: 'Unauthorized', err: 'Invalid or missing API key' });
	});

	it('fails on a key of another organization with a message about the Organization ID (403)', async () => {
		const result = await testCredential({
			baseUrl: sandbox.url,
			apiKey: sandbox.otherOrgApiKey,
			organizationId: sandbox.organizationId,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API key is valid but not allowed here \(HTTP 403\)/);
		expect(result.message).toContain('Organization ID');
		expect(result.apiBody).toMatchObject({ message: 'Forbidden' });
	});

	it.each([`URL/`, `URL///`, ` URL `])('accepts the Base URL written as %s', async (form) => {
		const baseUrl = form.replace('URL', sandbox.url);
		const result = await testCredential({
			baseUrl,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it('repairs a mistyped scheme', async () => {
		const baseUrl = sandbox.url.replace('http://', 'http//');
		const result = await testCredential({
			baseUrl,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		});
		expect(result.status).toBe('OK');
	});

	it('fails on an unusable Base URL without sending the key anywhere', async () => {
		sandbox.clearLog();
		// An address an HTTP client could reach: only the refusal keeps the key from the sandbox.
		const result = await testCredential({
			baseUrl: `${sandbox.url}/?tenant=1`,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		});
		// n8n shows its own words here; the node explains the Base URL when it runs (bad-input tests).
		expect(result).toEqual({ status: 'Error', message: 'Invalid URL' });
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('the Test button repairs the Base URL as the node does', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.clearLog());

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
		const credentials = {
			baseUrl: form(sandbox.url),
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		};
		expect(parseBaseUrl(credentials.baseUrl).url).toBe(sandbox.url);
		expect(await testCredential(credentials)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const { error } = await runNode({
			credentials,
			parameters: { resource: 'customer', operation: 'getAll', limit: 1 },
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((request) => [request.path, request.status])).toEqual([
			['/api/public/v1/test-api-key', 200],
			['/api/public/v1/customers', 200],
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
			const credentials = {
				baseUrl: form.replace('PORT', String(sandbox.port)),
				apiKey: sandbox.apiKey,
				organizationId: sandbox.organizationId,
			};
			expect(parseBaseUrl(credentials.baseUrl).url).toBeUndefined();
			expect(await testCredential(credentials)).toEqual({
				status: 'Error',
				message: 'Invalid URL',
			});
			expect(sandbox.requests).toEqual([]);
		},
	);

	it('a Base URL without a scheme means https in both: nothing reaches the http sandbox', async () => {
		const credentials = {
			baseUrl: `127.0.0.1:${sandbox.port}`,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		};
		expect(parseBaseUrl(credentials.baseUrl).url).toBe(`https://127.0.0.1:${sandbox.port}`);
		expect((await testCredential(credentials)).status).toBe('Error');
		const { error } = await runNode({
			credentials,
			parameters: { resource: 'customer', operation: 'getAll', limit: 1 },
		});
		expect(error?.message).toBe(
			'Get many customers failed: the server at that address does not speak HTTPS',
		);
		expect(error?.description).toBe(
			'No scheme was typed, so https:// was used, and the server at that address does not speak HTTPS. If it is a plain-HTTP address, type http:// in front of the Base URL in the Business CRM credential.',
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('https:// typed in front of a plain-HTTP server: the handshake failure names scheme and port', async () => {
		const { error } = await runNode({
			credentials: {
				baseUrl: `https://127.0.0.1:${sandbox.port}`,
				apiKey: sandbox.apiKey,
				organizationId: sandbox.organizationId,
			},
			parameters: { resource: 'customer', operation: 'getAll', limit: 1 },
		});
		expect(error?.message).toMatch(
			/^Get many customers failed: the TLS handshake failed \((EPROTO|ERR_SSL_WRONG_VERSION_NUMBER|wrong version number)\)$/,
		);
		expect(error?.description).toBe(
			'The server at the Base URL does not speak HTTPS on that address and port. Check the scheme and port of the Base URL in the Business CRM credential.',
		);
		expect(sandbox.requests).toEqual([]);
	});
});

describe('the Test button does not follow a redirect', () => {
	it.each([301, 302, 307, 308])(
		'%i to another host: that host receives nothing, and the message says why',
		async (status) => {
			const elsewhere: string[] = [];
			const other = createServer((req, res) => {
				elsewhere.push(`${req.method} ${req.url} ${String(req.headers['x-api-key'])}`);
				res.end('{}');
			});
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			const otherPort = (other.address() as AddressInfo).port;
			const api = createServer((req, res) => {
				res.writeHead(status, { location: `http://127.0.0.1:${otherPort}${req.url}` });
				res.end();
			});
			await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
			try {
				const result = await testCredential({
					baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
					apiKey: ['redirect', 'canary', '1234'].join('-'),
					organizationId: 'org_1',
				});
				expect(result).toMatchObject({
					status: 'Error',
					message: `The API answered with a redirect to another address. The node does not follow redirects, so the API key never goes to an address you did not enter: put the address of the API itself into the Base URL. (HTTP ${status})`,
				});
				expect(elsewhere).toEqual([]);
			} finally {
				await new Promise((resolve) => api.close(resolve));
				await new Promise((resolve) => other.close(resolve));
			}
		},
	);
});

describe("the credential's own trimming", () => {
	it('the headers it makes carry the key and organization ID without the pasted spaces', () => {
		const credential = new BusinessCrmApi();
		const node: INode = {
			id: 'crm',
			name: 'CRM',
			type: 'n8n-nodes-business-crm.businessCrm',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: {
				getByName: () => new BusinessCrm(),
				getByNameAndVersion: () => new BusinessCrm(),
				getKnownTypes: () => ({}),
			},
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
