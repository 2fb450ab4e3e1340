import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger remembers between polls, in the workflow's static data (n8n saves it with the
 * workflow, so it survives a restart).
 */
export interface SeenCustomers {
	/** Which list this is: a fingerprint of the credential's Base URL and Organization ID. */
	source: string;
	/** How many customers the list held, as far as the last poll read it. */
	count: number;
	/** The id of the customer at offset count - 1: if it is still there, the list was only appended to. */
	lastId?: string;
	/** A fingerprint of every customer id seen, FINGERPRINT_LENGTH characters each, one after another. */
	known: string;
}

/** Where in the node's static data the state lives; the version changes if its shape does. */
const STATE_KEY = 'newCustomer';
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

/** The fingerprint that tells one API and organization from another. */
export function sourceOf(baseUrl: string, organizationId: string): string {
	return fingerprint(`${baseUrl}\n${organizationId}`);
}

/** The fingerprints stored in `known`, to look ids up in. */
export function knownSet(state: SeenCustomers): Set<string> {
	const set = new Set<string>();
	for (let at = 0; at < state.known.length; at += FINGERPRINT_LENGTH) {
		set.add(state.known.slice(at, at + FINGERPRINT_LENGTH));
	}
	return set;
}

/**
 * The state for this list, or undefined when there is none to trust: never polled, saved by
 * another version of the node, or recorded for another API or organization (a switched
 * credential would otherwise make every customer of the new list look new).
 */
export function loadState(staticData: IDataObject, source: string): SeenCustomers | undefined {
	const saved = staticData[STATE_KEY] as
		| (Partial<SeenCustomers> & { version?: unknown })
		| undefined;
	if (
		!saved ||
		saved.version !== STATE_VERSION ||
		saved.source !== source ||
		typeof saved.count !== 'number' ||
		typeof saved.known !== 'string'
	) {
		return undefined;
	}
	return {
		source,
		count: saved.count,
		lastId: typeof saved.lastId === 'string' ? saved.lastId : undefined,
		known: saved.known,
	};
}

/** Replaces the state as a whole, so n8n sees the change and saves it. */
export function saveState(staticData: IDataObject, state: SeenCustomers): void {
	staticData[STATE_KEY] = {
		version: STATE_VERSION,
		source: state.source,
		count: state.count,
		...(state.lastId === undefined ? {} : { lastId: state.lastId }),
		known: state.known,
	};
}
