/**
 * Reads what a user typed as the credential's Base URL: the address requests can use, or why
 * there is none. Repairs what people paste by mistake (spaces, trailing slashes, "https//",
 * "htps://", a missing scheme) and refuses what cannot be meant (another scheme, a query string).
 *
 * It also runs inside n8n expressions (the credential test and the node's requestDefaults embed
 * its source), so it stays one self-contained function: no imports, no helpers, no `this`, and it
 * never throws, because n8n turns an exception inside an expression into an empty value.
 */
export function parseBaseUrl(value: unknown): { url?: string; problem?: string } {
	const typed = typeof value === 'string' ? value.trim() : '';
	const example = ' Enter the API address only, e.g. https://api.example.com';
	if (typed === '') return { problem: 'The Base URL is empty.' + example };
	let url;
	const scheme = /^(h+t+p+)(s*)(?::\/*|\/+)/i.exec(typed);
	if (scheme) {
		url = (scheme[2] ? 'https' : 'http') + '://' + typed.slice(scheme[0].length);
	} else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) {
		return {
			problem: 'The Base URL "' + typed + '" does not start with http:// or https://.' + example,
		};
	} else {
		// No scheme at all: assume HTTPS so the key is never sent in clear text by accident.
		url = 'https://' + typed;
	}
	if (/[?#]/.test(url)) {
		return {
			problem:
				'The Base URL "' + typed + '" contains a query string or fragment (? or #).' + example,
		};
	}
	if (/\s/.test(url)) return { problem: 'The Base URL "' + typed + '" contains spaces.' + example };
	url = url.replace(/\/+$/, '');
	if (!/^https?:\/\/[^/:]+/i.test(url)) {
		return { problem: 'The Base URL "' + typed + '" has no host name.' + example };
	}
	return { url };
}

/**
 * The expression that resolves the credential's Base URL wherever n8n builds a request. An
 * unusable one resolves to nothing; the node explains why before it sends anything. A compiler
 * that drops whitespace could put two closing braces together, which would end the expression
 * early, so they are kept apart.
 */
export const BASE_URL_EXPRESSION = `={{ (${parseBaseUrl.toString().replace(/\}\}/g, '} }')})($credentials.baseUrl).url }}`;
