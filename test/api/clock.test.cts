/**
 * The clock's waits and deadlines end as soon as the signal they follow aborts (a poll past its
 * deadline): a poll waiting to retry stops waiting at once, and a request started after the poll
 * ended is not sent on. These run on the wall clock: a wait of 20 s must end far sooner.
 */
import { clock, deadline } from '../../nodes/BusinessCrm/api/clock';

const ENDED = new Error('the poll ended');

/** How long `wait` took to reject, in ms, and with what. */
async function rejectionOf(wait: Promise<unknown>): Promise<{ ms: number; reason: unknown }> {
	const started = Date.now();
	const reason = await wait.then(
		() => 'resolved',
		(error: unknown) => error,
	);
	return { ms: Date.now() - started, reason };
}

describe('a wait (retries, pacing)', () => {
	it('ends as soon as its signal aborts, with the reason the signal gives', async () => {
		const poll = new AbortController();
		setTimeout(() => poll.abort(ENDED), 50);
		const { ms, reason } = await rejectionOf(clock.sleep(20_000, poll.signal));
		expect(reason).toBe(ENDED);
		expect(ms).toBeLessThan(5_000);
	});

	it('on a signal that has already aborted does not start', async () => {
		const { ms, reason } = await rejectionOf(clock.sleep(20_000, AbortSignal.abort(ENDED)));
		expect(reason).toBe(ENDED);
		expect(ms).toBeLessThan(5_000);
	});
});

describe("a request's deadline", () => {
	it('on a signal that has already aborted has ended before the request is sent', async () => {
		const ends = deadline(20_000, AbortSignal.abort(ENDED));
		try {
			expect(ends.signal.aborted).toBe(true);
			expect(ends.passed()).toBe(false);
			expect((await rejectionOf(ends.reached)).reason).toBe(ENDED);
		} finally {
			ends.clear();
		}
	});
});
