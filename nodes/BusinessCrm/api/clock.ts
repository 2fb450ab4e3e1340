import { sleep } from 'n8n-workflow';

/**
 * The one source of time for the waits of retries and pacing and for the deadlines of requests
 * and polls. Tests replace its two functions to run those waits on a fake clock.
 */
export const clock = {
	now: (): number => Date.now(),
	/** Resolves after `ms`; rejects when `signal` aborts first (n8n-workflow's sleep). */
	sleep: async (ms: number, signal?: AbortSignal): Promise<void> => {
		if (!signal) return await sleep(ms);
		const own = new AbortController();
		const unfollow = follow(signal, () => own.abort(signal.reason));
		try {
			await sleep(ms, own.signal);
		} finally {
			unfollow();
		}
	},
};

/** What to call when a signal aborts, behind one listener per signal. */
const followers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` when `signal` aborts (at once if it has); the returned function stops that.
 * Ten pages read at once each wait and set deadlines on the run's (or poll's) signal: a listener
 * each would pass Node's limit of 10 and print a memory-leak warning into n8n's log.
 */
export function follow(signal: AbortSignal, onAbort: () => void): () => void {
	if (signal.aborted) {
		onAbort();
		return () => undefined;
	}
	let callbacks = followers.get(signal);
	if (!callbacks) {
		const created = new Set<() => void>();
		callbacks = created;
		followers.set(signal, created);
		signal.addEventListener('abort', () => [...created].forEach((callback) => callback()), {
			once: true,
		});
	}
	const own = callbacks;
	// A wrapper, so that one callback followed twice is two entries.
	const entry = () => onAbort();
	own.add(entry);
	return () => own.delete(entry);
}

/** A deadline: `signal` aborts `ms` after it was set, unless `clear` was called before. */
export interface Deadline {
	signal: AbortSignal;
	/** Rejects when the signal aborts; never settles otherwise. */
	reached: Promise<never>;
	/** Whether it was the deadline, not `outer`, that ended the wait. */
	passed(): boolean;
	clear(): void;
}

/**
 * The reason a cleared deadline stops its sleep with. abort() without one builds a DOMException
 * with its stack for every request, 2 % of a page read's time, and nobody reads it.
 */
const CLEARED = Symbol('deadline cleared');

/**
 * An abort signal that fires after `ms`, or when `outer` (an execution's cancel signal) does.
 * Built on the clock's sleep, not on a timer of its own, so that a fake clock moves it too.
 */
export function deadline(ms: number, outer?: AbortSignal): Deadline {
	const controller = new AbortController();
	const stop = new AbortController();
	let passed = false;
	// Listening before `follow`: an `outer` that has already aborted aborts the controller at once.
	const reached = new Promise<never>((_resolve, reject) => {
		controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
			once: true,
		});
	});
	// Nobody may be racing it when it fires.
	reached.catch(() => undefined);
	const unfollow = outer ? follow(outer, () => controller.abort(outer.reason)) : () => undefined;
	clock.sleep(ms, stop.signal).then(
		() => {
			if (stop.signal.aborted) return;
			passed = true;
			controller.abort(new Error(`deadline of ${ms} ms passed`));
		},
		// The sleep was cut short by clear(): nothing to do.
		() => undefined,
	);
	return {
		signal: controller.signal,
		reached,
		passed: () => passed,
		clear: () => {
			stop.abort(CLEARED);
			unfollow();
		},
	};
}
