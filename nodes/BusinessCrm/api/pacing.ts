/** How many requests of one run are in flight at once, and how fast they leave after a 429. */
import type { Context } from '../context';
import { clock } from './clock';

/**
 * Holds back the requests of one node run. n8n starts every input item's request at once, so
 * 1,000 items would be 1,000 parallel requests and a wall of 429s; a request keeps its slot
 * while it waits out a 429, which makes the others wait too.
 */
export const MAX_PARALLEL_REQUESTS = 10;

/** Per success, the paced rate grows by this many requests/s: about 1% a second at any rate. */
const PROBE_STEP = 0.01;
/** After a further 429 the paced rate is cut to this share. */
const BACKOFF = 0.95;
/** Never slower than one request in 10 s, so a run cannot be paced to a standstill. */
const MIN_RATE = 0.1;

/**
 * Paces a run the API has rate-limited, like the AWS SDKs' adaptive retry mode. Until the first
 * 429 nothing is held back. That 429 holds every request of the run until the time the API asked
 * for; from then on requests leave at the rate that succeeded, raised a little with every success
 * in case the limit rises, and cut once per rate-limit window that still answers 429.
 */
export class Pacer {
	private startedAt?: number;
	private successes = 0;
	private holdUntil = 0;
	/** Set by the first 429 after a success: the rate is measured when the hold ends. */
	private measuring = false;
	/** The time before the first 429, and the wait it asked for. */
	private before = 0;
	private asked = 0;
	/** Requests per second once paced. */
	private rate?: number;
	private nextAt = 0;
	private changedAt = 0;
	/** Until then, 429s come from the window that was already full when the rate was cut. */
	private quietUntil = 0;

	/** Waits for this request's turn; returns the time it may be sent. */
	async turn(signal?: AbortSignal): Promise<number> {
		for (;;) {
			const now = clock.now();
			this.startedAt ??= now;
			if (now < this.holdUntil) {
				await clock.sleep(this.holdUntil - now, signal);
				continue;
			}
			if (this.measuring) {
				this.measuring = false;
				// The successes were spread over the time before the 429, or over one window at
				// least, which is no shorter than the wait the API asked for.
				const span = Math.max(1, this.asked, this.before);
				this.rate = Math.max(MIN_RATE, (this.successes * 1000) / span);
				this.nextAt = now;
			}
			if (this.rate === undefined) return now;
			const at = Math.max(now, this.nextAt);
			this.nextAt = at + 1000 / this.rate;
			if (at > now) await clock.sleep(at - now, signal);
			return at;
		}
	}

	succeeded(): void {
		this.successes++;
		if (this.rate !== undefined) this.rate += PROBE_STEP;
	}

	/** A 429 for a request sent at `sentAt`, which will be retried after `waitMs`. */
	throttled(sentAt: number, waitMs: number): void {
		// Replies to requests sent before the last change say nothing new.
		const now = clock.now();
		if (sentAt < this.changedAt || now < this.quietUntil) return;
		this.changedAt = now;
		if (this.rate === undefined) {
			this.holdUntil = Math.max(this.holdUntil, now + waitMs);
			if (this.successes > 0 && !this.measuring) {
				this.measuring = true;
				this.before = now - (this.startedAt ?? now);
				this.asked = waitMs;
			}
			return;
		}
		this.rate = Math.max(MIN_RATE, this.rate * BACKOFF);
		this.quietUntil = now + waitMs;
	}
}

export class RequestGate {
	private active = 0;
	private readonly waiting: Array<() => void> = [];
	readonly pacer = new Pacer();

	async acquire(): Promise<void> {
		if (this.active < MAX_PARALLEL_REQUESTS) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.active--;
	}
}

// Keyed by the run's execute data, which every item of one node run shares; weak, so a
// finished run's gate goes with it.
const gates = new WeakMap<object, RequestGate>();

export function gateFor(ctx: Context): RequestGate | undefined {
	if (!('getExecuteData' in ctx)) return undefined;
	const key = ctx.getExecuteData();
	let gate = gates.get(key);
	if (!gate) {
		gate = new RequestGate();
		gates.set(key, gate);
	}
	return gate;
}
