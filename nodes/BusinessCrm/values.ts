import type { IDataObject } from 'n8n-workflow';

/** A JSON object: not null, not a list. */
export function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A value as text, trimmed: text as it is, a number (BigInt too) or boolean as written, anything else empty
 * (and so refused or ignored by the caller).
 */
export function trimmedText(value: unknown): string {
	if (typeof value === 'string') return value.trim();
	const type = typeof value;
	if (type === 'number' || type === 'bigint' || type === 'boolean') return String(value);
	return '';
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
