/**
 * A Get's 200 counts for the run's pacing as a Create's 201 does (api/transport.ts tells the pacer
 * of every 2xx): after the first 429, a run of Gets leaves at the rate that succeeded.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runNode } from '../helpers/harness.cjs';
import { byId } from '../helpers/fixtures.cjs';
import { json, withApi, type Answer } from '../helpers/scripted-api.cjs';

it('Business Get: after the first 429 the retries leave at the rate that succeeded, not together', async () => {
	const retriesAt: number[] = [];
	let requests = 0;
	// Of the first 10 in flight, 5 succeed at once and 5 are refused a moment later and asked to
	// wait 1 s: 5 successes in that 1 s make a rate of 5 a second, one request each 200 ms.
	const answer: Answer = async (_request, url, response) => {
		const number = ++requests;
		if (number > 5 && number <= 10) {
			await sleep(50);
			json(response, 429, { retryAfter: 1 });
			return;
		}
		if (number > 10) retriesAt.push(Date.now());
		json(response, 200, { content: { business: { id: url.pathname.split('/').pop() } } });
	};
	await withApi(answer, async (api) => {
		const items = Array.from({ length: 10 }, (_, index) => ({ id: `biz_${index}` }));
		const { items: output, error } = await runNode({
			parameters: { resource: 'business', operation: 'get', businessId: byId('={{ $json.id }}') },
			credentials: api.credentials,
			items,
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.id)).toEqual(items.map((item) => item.id));
		expect(retriesAt).toHaveLength(5);
		// Unpaced, the 5 retries would leave together when the wait ends.
		expect(Math.max(...retriesAt) - Math.min(...retriesAt)).toBeGreaterThanOrEqual(600);
	});
});
