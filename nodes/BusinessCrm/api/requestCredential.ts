import type { Context } from '../context';
import {
	checkCredential,
	crmIdentity,
	CREDENTIAL_TYPE,
	type CheckedCredential,
} from '../credential/credential';
import { inputError, SETUP } from '../errors/errors';

/**
 * Reads and checks the credential before anything is sent. A Base URL the node cannot use, or a
 * key with a character HTTP cannot carry, would otherwise fail with an unhelpful message.
 */
async function readCredential(ctx: Context, itemIndex?: number): Promise<CheckedCredential> {
	const checked = checkCredential(await ctx.getCredentials(CREDENTIAL_TYPE));
	if ('problem' in checked) throw inputError(ctx, checked.problem, checked.fix, itemIndex, SETUP);
	return checked;
}

// One read per item, not per page: in n8n each getCredentials is a database read and decryption.
const credentialByContext = new WeakMap<object, Promise<CheckedCredential>>();

/** The item's credential, checked; read once per context. */
export function credentialFor(ctx: Context, itemIndex?: number): Promise<CheckedCredential> {
	let credential = credentialByContext.get(ctx);
	if (!credential) {
		credential = readCredential(ctx, itemIndex);
		credentialByContext.set(ctx, credential);
	}
	return credential;
}

/** What must never appear in a message or output of this item: the key as sent, and so on. */
export async function credentialSecrets(ctx: Context, itemIndex?: number): Promise<string[]> {
	return (await credentialFor(ctx, itemIndex)).secrets;
}

/** Which CRM the item's credential points at (see crmIdentity). */
export async function crmOf(ctx: Context, itemIndex?: number): Promise<string> {
	const { baseUrl, organizationId } = await credentialFor(ctx, itemIndex);
	return crmIdentity(baseUrl, organizationId);
}

/**
 * Makes the next request of this context read the credential again. n8n keeps one poll context
 * for as long as a workflow is active, across edits of the credential, so a trigger calls this
 * at the start of every poll.
 */
export function forgetCredentialSecrets(ctx: Context): void {
	credentialByContext.delete(ctx);
}
