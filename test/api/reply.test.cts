/** What the node makes of a reply that did not fail with an error status (api/reply.ts). */
import { startApi, json, stop } from '../helpers/scripted-api.cjs';
import { runNode } from '../helpers/harness.cjs';
import { byId } from '../helpers/fixtures.cjs';

describe('a 3xx reply is an error, not data', () => {
	it.each([300, 302, 308])(
		'%i with a JSON body: the item fails, nothing is output',
		async (status) => {
			const api = await startApi((_request, _url, response) =>
				json(response, status, { content: { business: { id: 'biz_from_3xx' } } }),
			);
			try {
				const { items, error } = await runNode({
					parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
					credentials: api.credentials,
				});
				expect(items).toEqual([]);
				expect(error?.message).toBe(
					`Get business failed: the Business CRM API answered with HTTP ${status}`,
				);
				expect(api.urls).toHaveLength(1);
			} finally {
				await stop(api.server);
			}
		},
	);
});
