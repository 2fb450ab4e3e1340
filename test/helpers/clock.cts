/**
 * The package's one clock (nodes/BusinessCrm/shared/clock.ts), run faster than the wall: the
 * waits of retries and pacing and the deadlines of requests and polls then take a fraction of
 * their time, while what they compute (how long to wait, when to give up) stays as in real time.
 * Time on it is the wall's time since it started, times `factor`; read it with `clock.now()`.
 */
import { clock } from '../../nodes/BusinessCrm/api/clock';
import type { Sandbox } from '../sandbox/server.cjs';

export { clock };

/** Makes the package's clock run `factor` times faster until `restore` is called. */
export function fastClock(factor: number): { restore(): void } {
	const { now, sleep } = clock;
	const startedAt = now();
	clock.now = () => startedAt + (Date.now() - startedAt) * factor;
	clock.sleep = async (ms, signal) => await sleep(ms / factor, signal);
	return {
		restore: () => {
			clock.now = now;
			clock.sleep = sleep;
		},
	};
}

/**
 * fastClock for the tests of one describe block; `realTime()` puts one test back on the wall
 * clock (one that meets a server's own time, such as a rate-limit window), `only(n)` runs one
 * test n times faster instead.
 */
export function useFastClock(factor: number): { realTime(): void; only(factor: number): void } {
	let running: { restore(): void } | undefined;
	beforeEach(() => (running = fastClock(factor)));
	afterEach(() => running?.restore());
	return {
		realTime: () => running?.restore(),
		// For a test that bounds a wait from above: the machine's delays are multiplied by the
		// factor too, so a busy machine needs a smaller one.
		only: (slower: number) => {
			running?.restore();
			running = fastClock(slower);
		},
	};
}

/**
 * For the tests of one describe block: the package's clock stands still but for `msPerPage` for
 * each request to `path` the sandbox answers, so how far a poll gets within its deadline does not
 * depend on this machine's speed. `sandbox` gives the block's sandbox (started before the tests).
 */
export function usePagedClock(
	sandbox: () => Pick<Sandbox, 'onRequest'>,
	path: string,
	msPerPage: number,
): void {
	const wallNow = clock.now;
	beforeEach(() => {
		let now = Date.now();
		clock.now = () => now;
		sandbox().onRequest = (entry) => {
			if (entry.path === path) now += msPerPage;
		};
	});
	afterEach(() => {
		clock.now = wallNow;
	});
}
