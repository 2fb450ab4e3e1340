import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { asText } from '../values';
import { parseBaseUrl, urlPassword } from './baseUrl';
import { refusedCharacter } from './characters';

export const CREDENTIAL_TYPE = 'businessCrmApi';

/**
 * The shortest API key the node accepts. Real keys are long random strings; a key shorter than
 * this is a typo, and could not be kept out of messages without blanking ordinary words.
 */
export const MIN_API_KEY_LENGTH = 8;

/** Where a field named in a problem is: after "The <field>". */
export const IN_CREDENTIAL = 'in the Business CRM credential';
/** Before "Open the credential and paste the <field> again …". */
export const HIDDEN_CHARACTER = 'A hidden or unusual character was pasted with it.';
export const NO_DOMAINS_LISTED =
	'The Business CRM credential allows Specific Domains but lists none, so the node sends nothing';

/** The credential as requests use it. */
export interface CheckedCredential {
	baseUrl: string;
	apiKey: string;
	organizationId: string;
	/** True when the Base URL was typed without a scheme and https:// was assumed. */
	schemeAssumed: boolean;
	/** What must never appear in a message or output: the key as sent, a password in the URL. */
	secrets: string[];
}

/** Why the credential cannot be used, worded for the user. */
export interface CredentialProblem {
	problem: string;
	fix: string;
}

/**
 * Whether a header value cannot carry the character as typed. HTTP clients drop or mangle
 * anything outside visible ASCII, so the value sent would differ from the value the node keeps
 * out of messages.
 */
function notVisibleAscii(character: string): boolean {
	const code = character.codePointAt(0) as number;
	return code < 0x21 || code > 0x7e;
}

/** A password as typed in the URL, decoded as it is sent (p%40ss goes as p@ss). */
function decoded(password: string): string {
	try {
		return decodeURIComponent(password);
	} catch {
		return password;
	}
}

/**
 * A password in the URL as typed, as sent (decoded), and as the Authorization header carries it
 * (user:password in Base64), which an API that echoes request headers would show.
 */
function passwordForms(url: string): string[] {
	const password = urlPassword(url);
	if (password === undefined) return [];
	const user = /^[a-z]+:\/\/([^/?#@:]*):/i.exec(url)?.[1] ?? '';
	const basic = Buffer.from(`${decoded(user)}:${decoded(password)}`).toString('base64');
	return [password, decoded(password), basic];
}

function headerValue(label: string, value: unknown): string | CredentialProblem {
	// A plain trim, not trimmedText: a hidden character pasted at an end is refused, not cut.
	const text = asText(value).trim();
	if (text === '') {
		return {
			problem: `The ${label} ${IN_CREDENTIAL} is empty`,
			fix: `Open the credential and enter the ${label}.`,
		};
	}
	const hidden = refusedCharacter(text, notVisibleAscii);
	if (hidden !== undefined) {
		return {
			problem: `The ${label} ${IN_CREDENTIAL} contains ${hidden}`,
			fix: `${HIDDEN_CHARACTER} Open the credential and paste the ${label} again as a single line, copied from its source.`,
		};
	}
	return text;
}

export const BASE_URL_FIX = 'Open the credential and correct the Base URL.';

/**
 * Checks the credential before anything is sent: a Base URL the node can use, and a key and
 * organization ID that travel in a header exactly as typed (after trimming).
 */
export function checkCredential(
	data: ICredentialDataDecryptedObject,
): CheckedCredential | CredentialProblem {
	const { url, problem, schemeAssumed } = parseBaseUrl(data.baseUrl);
	if (url === undefined) {
		return {
			problem: (problem as string).replace('The Base URL', `The Base URL ${IN_CREDENTIAL}`),
			fix: BASE_URL_FIX,
		};
	}
	const apiKey = headerValue('API Key', data.apiKey);
	if (typeof apiKey !== 'string') return apiKey;
	if (apiKey.length < MIN_API_KEY_LENGTH) {
		return {
			problem: `The API Key ${IN_CREDENTIAL} has only ${apiKey.length} characters, too few for an API key`,
			fix: `Open the credential and paste the whole API key (at least ${MIN_API_KEY_LENGTH} characters).`,
		};
	}
	const organizationId = headerValue('Organization ID', data.organizationId);
	if (typeof organizationId !== 'string') return organizationId;
	const refused = domainProblem(data, url);
	if (refused) return refused;
	// Only the key is secret; the organization ID stays readable, since a 403 asks to check it.
	const secrets = [apiKey, ...passwordForms(url)];
	return {
		baseUrl: url,
		apiKey,
		organizationId,
		schemeAssumed: schemeAssumed === true,
		secrets,
	};
}

/**
 * Which CRM a credential points at: its address and Organization ID, so that another key, a new
 * password or a host typed in capitals on the same CRM give the same text. `baseUrl` as
 * parseBaseUrl gives it.
 */
export function crmIdentity(baseUrl: string, organizationId: string): string {
	return `${addressOf(baseUrl)}\n${organizationId}`;
}

/** The address alone: scheme, lower-case host, port and path, without a `user:password@` part. */
function addressOf(baseUrl: string): string {
	try {
		const url = new URL(baseUrl);
		return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
	} catch {
		return baseUrl;
	}
}

/** The host a URL names, in lower case and without a trailing dot, as n8n compares hosts. */
function hostOf(url: string): string {
	try {
		return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
	} catch {
		return '';
	}
}

/**
 * Whether the credential's Allowed HTTP Request Domains let the node send to the Base URL.
 * Checked here, on every road a request takes, because only n8n 2.4x's RoutingNode checks the
 * list, and only for the requests it builds itself; n8n-workflow's isDomainAllowed is not in the
 * n8n-workflow of older n8n versions, so the match is n8n's rule written again: an entry is a
 * host, or `*.example.com` for the hosts under example.com (not example.com itself). "None"
 * keeps the credential out of the HTTP Request node; for the credential's own node n8n applies
 * no list then, and neither does this.
 */
function domainProblem(
	data: ICredentialDataDecryptedObject,
	baseUrl: string,
): CredentialProblem | undefined {
	if (data.allowedHttpRequestDomains !== 'domains') return undefined;
	const host = hostOf(baseUrl);
	const listed = String(data.allowedDomains ?? '')
		.split(',')
		.map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
		.filter((entry) => entry !== '');
	if (listed.length === 0) {
		return {
			problem: NO_DOMAINS_LISTED,
			fix: `Open the credential and add ${host} to Allowed Domains, or set Allowed HTTP Request Domains to All.`,
		};
	}
	const allowed = listed.some((entry) =>
		entry.startsWith('*.') ? entry.length > 2 && host.endsWith(entry.slice(1)) : host === entry,
	);
	if (allowed) return undefined;
	return {
		problem: `The Base URL's host ${host} is not among the Allowed Domains of the Business CRM credential (${listed.join(', ')}), so the node sends nothing`,
		fix: `Open the credential and add ${host} to Allowed Domains, or set Allowed HTTP Request Domains to All.`,
	};
}
