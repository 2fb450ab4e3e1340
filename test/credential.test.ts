import { startSandbox, type Sandbox } from './sandbox/server';
import { testCredential } from './helpers/harness';

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
		const result = await testCredential({
			baseUrl: `ftp://127.0.0.1:${sandbox.port}`,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		});
		// n8n shows its own words here; the node explains the Base URL when it runs (bad-input tests).
		expect(result).toEqual({ status: 'Error', message: 'Invalid URL' });
		expect(sandbox.requests).toHaveLength(0);
	});
});
