/** Parameter readers (params/parameters.ts) beyond the bad-input and one-value suites. */
import { startApi } from '../helpers/scripted-api.cjs';
import { runNode } from '../helpers/harness.cjs';

describe('Return All from an expression', () => {
	it('anything but true or false is refused, not guessed', async () => {
		const api = await startApi();
		try {
			const { error } = await runNode({
				parameters: { resource: 'customer', operation: 'getAll', returnAll: '={{ "yes" }}' },
				credentials: api.credentials,
			});
			expect(error?.message).toBe('Return All must be true or false, not "yes"');
			expect(api.urls).toEqual([]);
		} finally {
			await api.close();
		}
	});
});
