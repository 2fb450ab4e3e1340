/** The node's errors for an error status, when the API's reply has not its usual words (errors/errors.ts). */
import { startApi, json } from '../helpers/scripted-api.cjs';
import { runNode } from '../helpers/harness.cjs';
import { answered, getBusinessOf } from '../helpers/fixtures.cjs';
import { SERVER_ERROR_HINT } from '../../nodes/BusinessCrm/errors/errors';

describe('an error reply without the usual words is still explained', () => {
	const getWith = async (status: number, body: unknown) => {
		const api = await startApi((_request, _url, response) => json(response, status, body));
		try {
			return await runNode({
				parameters: getBusinessOf(),
				credentials: api.credentials,
			});
		} finally {
			await api.close();
		}
	};

	it('a 4xx the node has no hint for, with a list as body: the status alone', async () => {
		const { items, error } = await getWith(418, ['teapot']);
		expect(items).toEqual([]);
		expect(error?.message).toBe(answered('Get business', 418));
		expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('418');
		// No hint to give, and no server error to blame: no description at all.
		expect(error?.description).toBeNull();
	});

	it('a 500 whose message is not text: the err it gave, and that the server failed', async () => {
		const { error } = await getWith(500, { message: 42, err: ' disk full ' });
		expect(error?.message).toBe(answered('Get business', 500, '"disk full"'));
		expect(error?.description).toBe(SERVER_ERROR_HINT);
	});
});
