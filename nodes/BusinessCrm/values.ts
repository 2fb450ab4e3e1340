import type { IDataObject } from 'n8n-workflow';

/** A JSON object: not null, not a list. */
export function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A value as text: text as it is, a number (BigInt too) or boolean as written, anything else empty
 * (and so refused or ignored by the caller).
 */
export function asText(value: unknown): string {
	if (typeof value === 'string') return value;
	const type = typeof value;
	if (type === 'number' || type === 'bigint' || type === 'boolean') return String(value);
	return '';
}

/**
 * What pasted text carries unseen at its ends: whitespace (no-break space too), a format
 * character (zero-width space, byte order mark, soft hyphen, word joiner, direction mark) or a
 * filler that draws nothing (U+034F, U+3164, U+FFA0). Not the format characters that show
 * (Arabic number signs) or end a flag emoji (tags), nor a joiner after a mark, where it shapes
 * the letter (old-style Malayalam chillu, Bengali khanda ta). Sticky: tested at one position.
 */
const UNSEEN =
	/(?<!\p{M})(?:\u200C|\u200D)|(?!\u200C|\u200D|[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}\u{E0001}-\u{E007F}])[\s\p{Cf}\u034F\u3164\uFFA0]/uy;

function unseenAt(text: string, index: number): boolean {
	UNSEEN.lastIndex = index;
	return UNSEEN.test(text);
}

/**
 * Text as the node sends and compares it: in NFC, the composed form (macOS exports "é" as e and
 * an accent), without unseen characters at either end, so that a value pasted with a zero-width
 * space is stored and matched clean. Inside, text stays as given: a joiner belongs in Persian and
 * Indic names. Loops, not a regex anchored at the end, which is quadratic on long inner spaces.
 */
export function cleanText(text: string): string {
	const nfc = text.normalize('NFC');
	let start = 0;
	while (start < nfc.length) {
		const character = String.fromCodePoint(nfc.codePointAt(start) as number);
		// Alone: a leading joiner follows nothing, even once a leading mark is cut.
		if (!unseenAt(character, 0)) break;
		start += character.length;
	}
	let end = nfc.length;
	while (end > start) {
		const size = end - start > 1 && (nfc.codePointAt(end - 2) as number) > 0xffff ? 2 : 1;
		if (!unseenAt(nfc, end - size)) break;
		end -= size;
	}
	return nfc.slice(start, end);
}

/** A value as text (asText), cleaned (cleanText): every parameter, ID and field the node sends. */
export function trimmedText(value: unknown): string {
	return cleanText(asText(value));
}

/** Milliseconds as seconds for a message: "0.3 s", "2 s". */
export function seconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(1))} s`;
}

/** "1 retry", "2 retries". */
export function plural(count: number, one: string, many: string): string {
	return `${count} ${count === 1 ? one : many}`;
}

/** A number, or a number as text from an expression; NaN for anything else, so checks refuse it. */
export function asNumber(value: unknown): number {
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && value.trim() !== '') return Number(value);
	return NaN;
}
