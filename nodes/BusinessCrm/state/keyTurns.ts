import { matchSlot, type MatchKey } from './customerIndex';

/**
 * Per match key, the Skip Existing Create in progress, so that two rows with one key create
 * once. Kept by execution, not by CRM: which CRM an item is for is known only after an await,
 * and rows with one key must take their turns before anything is awaited, in input order.
 */
export class KeyTurns {
	private readonly pending = new Map<string, Promise<unknown>>();

	/** Runs `task` after every earlier task of the same key has ended, failed ones included. */
	async oneAtATime<T>(kind: MatchKey, key: string, task: () => Promise<T>): Promise<T> {
		// By slot: two rows with one number in two formats must not both create it, and a row whose
		// number matches an earlier row's in part waits to see that row's customer, to name it.
		const id = `${kind}:${matchSlot(kind, key)}`;
		const before = this.pending.get(id) ?? Promise.resolve();
		const run = before.then(task, task);
		const settled = run.then(
			() => undefined,
			() => undefined,
		);
		this.pending.set(id, settled);
		try {
			return await run;
		} finally {
			if (this.pending.get(id) === settled) this.pending.delete(id);
		}
	}
}
