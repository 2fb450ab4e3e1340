/**
 * The node's errors for an error status (errors/errors.ts): the API's words it reads from the
 * reply, and what it says when the reply has not its usual words.
 */
import { startApi, json } from '../helpers/scripted-api.cjs';
import { runNode } from '../helpers/harness.cjs';
import { answered, getBusinessOf } from '../helpers/fixtures.cjs';
import { apiWords, SERVER_ERROR_HINT } from '../../nodes/BusinessCrm/errors/errors';

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

describe("the API's words in an error reply", () => {
	it('are read only from an object, only as non-blank text, trimmed', () => {
		for (const notAnObject of [['Not Found'], 'Not Found', 404, null]) {
			expect(apiWords(notAnObject)).toStrictEqual({});
		}
		expect(apiWords({ message: 404, err: '  gone  ' })).toEqual({
			message: undefined,
			err: 'gone',
		});
		expect(apiWords({ message: ' ', err: 'x' })).toEqual({ message: undefined, err: 'x' });
	});
});
