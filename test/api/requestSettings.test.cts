/**
 * Request Options › Proxy as the node reads it, where n8n's own check lets an address through:
 * `test/api/one-road.test.cts` has the proxy cases n8n refuses first, and a proxy that works.
 */
import { BAD_PROXY, PROXY_HELP } from '../../nodes/BusinessCrm/api/requestSettings';
import { runNode } from '../helpers/harness.cjs';
import { withApi } from '../helpers/scripted-api.cjs';

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
