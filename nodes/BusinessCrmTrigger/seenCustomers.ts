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

/** The fingerprints stored in `known`, to look ids up in. */
export function knownSet(state: SeenCustomers): Set<string> {
	const set = new Set<string>();
	for (let at = 0; at < state.known.length; at += FINGERPRINT_LENGTH) {
		set.add(state.known.slice(at, at + FINGERPRINT_LENGTH));
	}
	return set;
}

/** The remembered state of this trigger and the fingerprint of the list it is for. */
export interface Remembered {
	source: string;
	/** Undefined when there is none to trust (see loadState). */
	state?: SeenCustomers;
}

/**
 * The state for the credential's list, or none to trust: never polled, saved by another version
 * of its shape, or recorded for another API or organization (a switched credential would otherwise
 * make every customer of the new list look new). State saved before the address was normalised
 * is still this list's: it is taken over, and saved under the new fingerprint by the next write.
 */
export async function loadState(ctx: IPollFunctions): Promise<Remembered> {
	const { source, legacy } = sourcesOf(await ctx.getCredentials(CREDENTIAL_TYPE));
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
		return { source };
	}
	const state: SeenCustomers = {
		source,
		count: saved.count,
		lastId: typeof saved.lastId === 'string' ? saved.lastId : undefined,
		known: saved.known,
	};
	return { source, state };
}

/** Replaces the state as a whole, so n8n sees the change and saves it. */
export function saveState(ctx: IPollFunctions, state: SeenCustomers): void {
	ctx.getWorkflowStaticData('node')[STATE_KEY] = {
		version: STATE_VERSION,
		source: state.source,
		count: state.count,
		...(state.lastId === undefined ? {} : { lastId: state.lastId }),
		known: state.known,
	};
}
