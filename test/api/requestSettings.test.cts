/**
 * Request Options › Proxy as the node reads it, where n8n's own check lets an address through:
 * `test/api/one-road.test.cts` has the proxy cases n8n refuses first, and a proxy that works.
 */
import { BAD_PROXY, MAX_TIMEOUT_MS, PROXY_HELP } from '../../nodes/BusinessCrm/api/requestSettings';
import { runNode } from '../helpers/harness.cjs';
import { withApi } from '../helpers/scripted-api.cjs';
import { credentialsFor } from '../helpers/fixtures.cjs';
import { startSandbox } from '../sandbox/server.cjs';

describe('Request Options › Proxy', () => {
	it('on port 0 (n8n lets it through) is refused with the fix, and nothing is sent', async () => {
		await withApi(undefined, async (api) => {
			const { error } = await runNode({
				credentials: api.credentials,
				parameters: {
					resource: 'business',
					operation: 'getAll',
					returnAll: true,
					requestOptions: { proxy: 'http://127.0.0.1:0' },
				},
			});
			expect(error?.message).toBe(BAD_PROXY);
			expect(error?.description).toBe(PROXY_HELP);
			expect(api.urls).toEqual([]);
		});
	});
});

describe('Request Options › Timeout', () => {
	it('above the longest timer Node.js sets (3,000,000,000 ms, meant as no limit) lets requests run', async () => {
		expect(MAX_TIMEOUT_MS).toBe(2 ** 31 - 1);
		const sandbox = await startSandbox({ businesses: 2, customers: 150 });
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(warning.name);
		process.on('warning', onWarning);
		try {
			const wanted = sandbox.customers[140];
			const { items, error } = await runNode({
				credentials: credentialsFor(sandbox),
				parameters: {
					resource: 'customer',
					operation: 'find',
					findBy: 'email',
					email: wanted.email,
					requestOptions: { timeout: 3_000_000_000 },
				},
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual([wanted]);
			// Two pages of the list, each under a timer Node.js can hold.
			expect(sandbox.requests).toHaveLength(2);
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings).not.toContain('TimeoutOverflowWarning');
		} finally {
			process.off('warning', onWarning);
			await sandbox.close();
		}
	});
});
