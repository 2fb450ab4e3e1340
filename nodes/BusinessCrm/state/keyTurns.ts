import type { IDataObject } from 'n8n-workflow';
import { KINDS, matchSlot, recordKey, type MatchKey } from './customerIndex';

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

	/**
	 * Runs `task` in the turn of every key the record has. A Create without Skip Existing takes
	 * them, so that a later row of the execution with Skip Existing on (an expression can set it
	 * per row) waits for it and finds the customer instead of creating it again. Always in the
	 * order of KINDS, so two such tasks never wait on each other crosswise.
	 */
	async inTurnOfAll<T>(record: IDataObject, task: () => Promise<T>): Promise<T> {
		const inTurn = KINDS.reduceRight<() => Promise<T>>((inner, kind) => {
			const key = recordKey(record, kind);
			return key === '' ? inner : async () => await this.oneAtATime(kind, key, inner);
		}, task);
		return await inTurn();
	}
}
