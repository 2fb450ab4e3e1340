/** The parts of an API reply an error message is made from. */
export interface ApiReply {
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
}

/** Shorter secrets are not cut out: they would blank ordinary words. */
const MIN_SECRET_LENGTH = 4;

const REDACTED = '[redacted]';

/** A hex digit in either case: APIs write %2f as well as %2F. */
function hexDigits(code: number, width: number): string {
	return [...code.toString(16).padStart(width, '0')]
		.map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
		.join('');
}

const HTML_NAMES: Record<string, string> = {
	'&': 'amp',
	'<': 'lt',
	'>': 'gt',
	'"': 'quot',
	"'": 'apos',
};

/**
 * Every way an API may write one character of a secret when it echoes it: as is, percent-encoded
 * (once or twice, either case, `+` for a space), JSON-escaped (\" \\ \/ \u00xx) or as an HTML
 * entity. Keys hold visible ASCII only, so two hex digits suffice.
 */
function characterForms(character: string): string {
	const code = character.charCodeAt(0);
	const forms = [
		character.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'),
		`%(?:25)?${hexDigits(code, 2)}`,
		`\\\\u${hexDigits(code, 4)}`,
		`&#0*${code};`,
		`&#[xX]0*${hexDigits(code, 1)};`,
	];
	if (character === ' ') forms.push('\\+');
	if ('"\\/'.includes(character)) forms.push(`\\\\\\${character}`);
	if (HTML_NAMES[character]) forms.push(`&${HTML_NAMES[character]};`);
	return `(?:${forms.join('|')})`;
}

/**
 * Built patterns by the secrets they match. Keyed by content, not by the array: n8n gives every
 * input item its own context, so each item reads the credential again and brings a new array of
 * the same secrets; building the pattern again was a tenth of a Create's own time. A credential
 * edited while n8n runs brings new secrets, so the map is cleared when it grows past a few.
 */
const patterns = new Map<string, RegExp | undefined>();
const MAX_PATTERNS = 16;

/** One pattern matching any secret in any of its encoded forms; undefined when none is long enough. */
export function secretPattern(secrets: string[]): RegExp | undefined {
	const key = JSON.stringify(secrets);
	if (patterns.has(key)) return patterns.get(key);
	const alternatives = secrets
		.filter((secret) => secret.length >= MIN_SECRET_LENGTH)
		// Longest first, so a secret inside another does not leave the rest of the longer one.
		.sort((a, b) => b.length - a.length)
		.map((secret) => [...secret].map(characterForms).join(''));
	const pattern = alternatives.length ? new RegExp(alternatives.join('|'), 'g') : undefined;
	if (patterns.size >= MAX_PATTERNS) patterns.clear();
	patterns.set(key, pattern);
	return pattern;
}

/** Never lets a secret reach a message: the API might echo the key back in its error text. */
export function redact(text: string, secrets: string[]): string {
	const pattern = secretPattern(secrets);
	return pattern ? text.replace(pattern, REDACTED) : text;
}

/** Every string in the value with the secrets cut out, object keys included; untouched if none. */
export function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) {
		const copy = value.map((entry) => redactValue(entry, secrets));
		return copy.some((entry, at) => entry !== value[at]) ? copy : value;
	}
	let changed = false;
	const copy: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) {
		const cleanKey = redact(key, secrets);
		const cleanEntry = redactValue(entry, secrets);
		changed ||= cleanKey !== key || cleanEntry !== entry;
		copy[cleanKey] = cleanEntry;
	}
	return changed ? copy : value;
}

/**
 * The reply with every secret cut out of its body (parsed, or text) and headers. Every reply
 * passes here before anything reads it, so what an output or a message quotes is already clean.
 * `text` is the body as it arrived: where no secret is in it in any form, none is in any string
 * JSON.parse made of it (the pattern holds the JSON escapes too), and the walk through every
 * value of a page of 100 customers is skipped. It was most of the node's own time on a read.
 */
export function withoutSecrets(reply: ApiReply, secrets: string[], text?: string): ApiReply {
	const pattern = secretPattern(secrets);
	const clean = pattern === undefined || (text !== undefined && text.search(pattern) === -1);
	const body = clean ? reply.body : redactValue(reply.body, secrets);
	const headers = redactValue(reply.headers, secrets) as Record<string, unknown>;
	return body === reply.body && headers === reply.headers ? reply : { ...reply, body, headers };
}

/** The start of a text for a message: secrets cut out first, so a cut never leaves part of one. */
export function excerpt(text: string, secrets: string[], length = 80): string {
	return redact(text, secrets).replace(/\s+/g, ' ').trim().slice(0, length);
}
