import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IPollFunctions } from 'n8n-workflow';
import { parseBaseUrl } from '../BusinessCrm/credential/baseUrl';
import { CREDENTIAL_TYPE, crmIdentity } from '../BusinessCrm/credential/credential';

/**
 * What the trigger remembers between polls, in the workflow's static data (n8n saves it with the
 * workflow, so it survives a restart).
 */
export interface SeenCustomers {
	/** Which list this is: a fingerprint of the credential's Base URL and Organization ID. */
	source: string;
	/**
	 * How many customers the list held when a read last saw all of it. 0 (and no lastId) after a
	 * read that cannot vouch for having seen every customer: the next poll reads the whole list.
	 */
	count: number;
	/** The id of the customer at offset count - 1: if it is still there, the list was only appended to. */
	lastId?: string;
	/** A fingerprint of every customer id seen, FINGERPRINT_LENGTH characters each, one after another. */
	known: string;
	/**
	 * A read of the whole list that goes on across polls (one too long for a poll's budget). While
	 * it lasts, count and lastId say where it stopped, not where the list ends.
	 */
	pass?: WholeRead;
}

export interface WholeRead {
	/** The first read of this list: what it finds is recorded, not emitted. */
	first: boolean;
	/** The fingerprints this read has seen so far; they replace `known` when it ends. */
	seen: string;
	/** How many times it had to start over because the list moved before where it stopped. */
	restarts: number;
}

/** Where in the node's static data the state lives; the version changes if its shape does. */
export const STATE_KEY = 'newCustomer';
const STATE_VERSION = 1;

/**
 * 64 bits of SHA-256 as base64url: 11 characters. With N ids known, a new id takes the
 * fingerprint of a known one (and would be missed) with probability N / 2^64, about 5e-15 at
 * N = 100,000. Stored in full the ids would take twice the space (cust_ plus 16 characters).
 */
export const FINGERPRINT_LENGTH = 11;

export function fingerprint(text: string): string {
	return createHash('sha256').update(text).digest().subarray(0, 8).toString('base64url');
}

/** Which list the credential points at: its API's address and Organization ID. */
function sourcesOf(credentials: ICredentialDataDecryptedObject): {
	source: string;
	legacy: string;
} {
	const baseUrl = parseBaseUrl(credentials.baseUrl).url ?? '';
	const organizationId = String(credentials.organizationId ?? '').trim();
	return {
		source: fingerprint(crmIdentity(baseUrl, organizationId)),
		// What version 1 of this node stored before it left the user and password out.
		legacy: fingerprint(`${baseUrl}\n${organizationId}`),
	};
}

/** The fingerprints of a string of them (`known`, or a whole read's `seen`), to look ids up in. */
export function knownSet(prints: string): Set<string> {
	const set = new Set<string>();
	for (let at = 0; at < prints.length; at += FINGERPRINT_LENGTH) {
		set.add(prints.slice(at, at + FINGERPRINT_LENGTH));
	}
	return set;
}

/**
 * An activated trigger, across polls and their contexts: its workflow and node; with `list`, that
 * trigger's memory of one list (what the process keeps per list: the sweep, the unsaved state).
 */
export function triggerKey(ctx: IPollFunctions, list?: string): string {
	const trigger = `${ctx.getWorkflow().id ?? ''}\n${ctx.getNode().id}`;
	return list === undefined ? trigger : `${trigger}\n${list}`;
}

/** The remembered state of this trigger and the fingerprint of the list it is for. */
export interface Remembered {
	source: string;
	/** Undefined when there is none to trust (see loadState). */
	state?: SeenCustomers;
	/** Whether `state` came from the static data n8n saved, not from this process (see loadState). */
	saved: boolean;
}

/**
 * What polls that found no saved state and emitted nothing recorded, by trigger and list, until
 * a poll finds a saved state. n8n's durable cursors (n8n 2.41) do not commit what a publish's
 * first poll records when it emits nothing, so without this the first scheduled poll would record
 * the list again, and a customer added in between would be taken for an existing one. Kept in the
 * process: a restart before the first scheduled poll (or that poll on another main) still does.
 */
const unsaved = new Map<string, SeenCustomers>();

/**
 * The state for the credential's list, or none to trust: never polled, saved by another version
 * of its shape, or recorded for another API or organization (a switched credential would otherwise
 * make every customer of the new list look new). State saved before the address was normalised
 * is still this list's: it is taken over, and saved under the new fingerprint by the next write.
 * With none saved, what an earlier poll of this trigger recorded in this process (see unsaved).
 */
export async function loadState(ctx: IPollFunctions): Promise<Remembered> {
	const { source, legacy } = sourcesOf(await ctx.getCredentials(CREDENTIAL_TYPE));
	const state = savedState(ctx, source, legacy);
	if (state !== undefined) {
		unsaved.delete(triggerKey(ctx, source));
		return { source, state, saved: true };
	}
	return { source, state: unsaved.get(triggerKey(ctx, source)), saved: false };
}

function savedState(
	ctx: IPollFunctions,
	source: string,
	legacy: string,
): SeenCustomers | undefined {
	const saved = ctx.getWorkflowStaticData('node')[STATE_KEY] as
		| (Partial<SeenCustomers> & { version?: unknown })
		| undefined;
	if (
		!saved ||
		saved.version !== STATE_VERSION ||
		(saved.source !== source && saved.source !== legacy) ||
		typeof saved.count !== 'number' ||
		typeof saved.known !== 'string'
	) {
		return undefined;
	}
	const state: SeenCustomers = {
		source,
		count: saved.count,
		lastId: typeof saved.lastId === 'string' ? saved.lastId : undefined,
		known: saved.known,
	};
	const pass = saved.pass as Partial<WholeRead> | null | undefined;
	if (pass === undefined) return state;
	// A half-done read whose progress cannot be read back would pass for a whole one.
	if (typeof pass?.seen !== 'string') return undefined;
	const restarts = typeof pass.restarts === 'number' ? pass.restarts : 0;
	return { ...state, pass: { first: pass.first === true, seen: pass.seen, restarts } };
}

/**
 * Replaces the state as a whole, so n8n sees the change and saves it. A poll that began with no
 * saved state and emits nothing also keeps it in the process (see unsaved); one that emits does
 * not, since n8n saves the state with the execution and drops both when it gives up on the poll.
 */
export function saveState(
	ctx: IPollFunctions,
	from: Remembered,
	state: SeenCustomers,
	emitting: boolean,
): void {
	ctx.getWorkflowStaticData('node')[STATE_KEY] = {
		version: STATE_VERSION,
		source: state.source,
		count: state.count,
		...(state.lastId === undefined ? {} : { lastId: state.lastId }),
		known: state.known,
		...(state.pass === undefined ? {} : { pass: state.pass }),
	};
	if (!from.saved && !emitting) unsaved.set(triggerKey(ctx, from.source), state);
}
