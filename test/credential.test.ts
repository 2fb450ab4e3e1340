import { startSandbox, type Sandbox } from './sandbox/server';
import { testCredential } from './helpers/harness';

describe('Business CRM API credential test (GET /api/public/v1/test-api-key)', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.clearLog());

	const good = () => ({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, organizationId: sandbox.organizationId });

	it('passes with a valid key and sends both headers to the test endpoint', async () => {
		expect(await testCredential(good())).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/public/v1/test-api-key');
		expect(request.headers['x-api-key']).toBe(sandbox.apiKey);
		expect(request.headers['x-organization-id']).toBe(sandbox.organizationId);
		expect(request.status).toBe(200);
	});
});
