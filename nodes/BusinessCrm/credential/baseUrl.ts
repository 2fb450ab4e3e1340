import { INVISIBLE, refusedCharacter } from './characters';

/** The versioned path prefix of the API (spec section 9); the node adds it itself. */
const VERSION_PREFIX = /\/api\/public\/v1\/*$/i;

export const EXAMPLE = ' Enter the API address only, e.g. https://api.example.com';

export const EMPTY_BASE_URL = 'The Base URL is empty.';

/**
 * The text with the password of a `user:password@` part left out, so that a Base URL can be
 * quoted in a message. Works on what was typed, which need not parse as a URL.
 */
export function withoutPassword(text: string): string {
	return text.replace(/^([^/?#@]*\/\/)?([^/?#@:]*):[^/?#@]*@/, '$1$2@');
}

/** The password of a `user:password@` part, to be kept out of every message. */
export function urlPassword(url: string): string | undefined {
	const match = /^[a-z]+:\/\/[^/?#@:]*:([^/?#@]+)@/i.exec(url);
	return match ? match[1] : undefined;
}

/**
 * Reads what a user typed as the credential's Base URL: the address requests can use, or why
 * there is none. Repairs what people paste by mistake (spaces, trailing slashes, "https//",
 * "htps://", a missing scheme, the API's own /api/public/v1 prefix) and refuses what cannot be
 * meant (another scheme, a query string).
 */
export function parseBaseUrl(value: unknown): {
	url?: string;
	problem?: string;
	/** True when no scheme was typed and https:// was put in front. */
	schemeAssumed?: boolean;
} {
	const typed = typeof value === 'string' ? value.trim() : '';
	if (typed === '') return { problem: EMPTY_BASE_URL + EXAMPLE };
	const quoted = `"${withoutPassword(typed)}"`;
	// Pasted with the address, such a character becomes part of the host or a path segment.
	const invisible = refusedCharacter(
		typed,
		(character) => character !== ' ' && INVISIBLE.test(character),
	);
	if (invisible !== undefined) {
		return { problem: `The Base URL ${quoted} contains ${invisible}.${EXAMPLE}` };
	}
	let url;
	let schemeAssumed = false;
	const scheme = /^(h+t+p+)(s*)(?::\/*|\/+)/i.exec(typed);
	if (scheme) {
		url = (scheme[2] ? 'https' : 'http') + '://' + typed.slice(scheme[0].length);
	} else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) {
		return { problem: `The Base URL ${quoted} does not start with http:// or https://.${EXAMPLE}` };
	} else {
		// No scheme at all: assume HTTPS so the key is never sent in clear text by accident.
		url = 'https://' + typed;
		schemeAssumed = true;
	}
	if (/[?#]/.test(url)) {
		return {
			problem: `The Base URL ${quoted} contains a query string or fragment (? or #).${EXAMPLE}`,
		};
	}
	if (/\s/.test(url)) return { problem: `The Base URL ${quoted} contains spaces.${EXAMPLE}` };
	// The node's paths start with /api/… themselves: a copied /api/public/v1 would be doubled.
	url = url.replace(VERSION_PREFIX, '').replace(/\/+$/, '');
	// One character of host after the scheme is enough to know there is a host.
	if (!/^https?:\/\/[^/:]/i.test(url)) {
		return { problem: `The Base URL ${quoted} has no host name.${EXAMPLE}` };
	}
	return { url, schemeAssumed };
}
