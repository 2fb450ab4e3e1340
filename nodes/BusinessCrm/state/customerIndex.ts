import type { IDataObject } from 'n8n-workflow';
import { trimmedText } from '../values';

/** What Find and Skip Existing match on; the values are saved in workflows. */
export type MatchKey = 'email' | 'phone' | 'name';

/** What Find finds by: those, and the customer's ID, which Skip Existing has no use for. */
export type FindKey = MatchKey | 'id';

export const MATCH_KEY_NAMES: Record<MatchKey, string> = {
	email: 'Email',
	phone: 'Phone',
	name: 'First and Last Name',
};

/**
 * Text as Find and Skip Existing compare it: cleaned as it is sent (trimmedText: NFC, no spaces
 * or invisible characters at the ends), each run of spaces inside as one, in lower case.
 */
export function matchText(value: unknown): string {
	return trimmedText(value).replace(/\s+/g, ' ').toLowerCase();
}

/** Email as matchText compares it. */
export function emailKey(email: unknown): string {
	return matchText(email);
}

/**
 * A customer ID as the API gives it, cut at the ends as all text is (trimmedText), nothing else:
 * case counts, since the spec does not say its `cust_<token>` tokens are case-blind, and a
 * folded ID could answer another customer.
 */
export function idKey(id: unknown): string {
	return trimmedText(id);
}

/**
 * How phone numbers match (docs/operations.md, "How phone numbers match"). A key is the number as
 * read: each digit of any script as its ASCII digit, letters in lower case, other signs as they
 * are, separators gone; "+" first for a number written in international form (+ or 00).
 */

/** Spaces, invisible characters, dots, dashes, brackets and slashes: they never count. */
const SEPARATOR = /[\s\p{Z}\p{Cf}\p{Pd}\p{Ps}\p{Pe}./]/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

/**
 * The value of a Unicode decimal digit. Unicode encodes every script's digits as runs of ten, 0
 * to 9 in order, some runs right after others, so the value is the distance from where the
 * digits before it start, modulo 10.
 */
function digitValue(char: string): string {
	if (char >= '0' && char <= '9') return char;
	const code = char.codePointAt(0) as number;
	let start = code;
	while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
	return String((code - start) % 10);
}

/** The phone as the node matches it; '' for a value without a digit, which is no number. */
export function phoneKey(phone: unknown): string {
	let read = '';
	// NFKC: full-width letters and signs are their ASCII forms.
	for (const char of trimmedText(phone).normalize('NFKC')) {
		if (SEPARATOR.test(char)) continue;
		read += DECIMAL_DIGIT.test(char) ? digitValue(char) : char.toLowerCase();
	}
	if (!/[0-9]/.test(read)) return '';
	return read.startsWith('00') ? `+${read.slice(2)}` : read;
}

/** A number, of its significant digits, this short matches only in full, and never in part. */
export const MIN_PHONE_TAIL = 7;

/**
 * What a number comes to once its prefixes are off: the digits after + (or 00) of a number in
 * international form; those after a trunk 0 of one in national form.
 */
function significant(key: string): string {
	if (key.startsWith('+')) return key.slice(1);
	return key.startsWith('0') ? key.slice(1) : key;
}

/** Whether a number in national form and one in international form are one number. */
function sameAcrossForms(national: string, international: string): boolean {
	const digits = international.slice(1);
	// The + left out, as a spreadsheet does; not with a trunk 0, or 020… would be Egypt's +20….
	if (national === digits) return !national.startsWith('0');
	const number = significant(national);
	if (number.length < MIN_PHONE_TAIL) return false;
	// The country code, 1 to 3 digits, taken off; letters are never a country code.
	return [1, 2, 3].some(
		(length) => /^[0-9]+$/.test(digits.slice(0, length)) && digits.slice(length) === number,
	);
}

export type PhoneMatch = 'full' | 'partial' | 'none';

/** Whether two phone keys are one number (full), may be (partial), or are two numbers. */
export function phoneMatch(a: string, b: string): PhoneMatch {
	if (a === '' || b === '') return 'none';
	const [aWide, bWide] = [a.startsWith('+'), b.startsWith('+')];
	if (aWide === bWide && significant(a) === significant(b)) return 'full';
	if (aWide !== bWide && sameAcrossForms(aWide ? b : a, aWide ? a : b)) return 'full';
	const [shorter, longer] = [significant(a), significant(b)].sort((x, y) => x.length - y.length);
	return shorter.length >= MIN_PHONE_TAIL && longer.endsWith(shorter) ? 'partial' : 'none';
}

/**
 * Where the index files a phone key: its last 7 significant characters, so that every number
 * it matches, in full or in part, is in the same slot.
 */
export function phoneSlot(key: string): string {
	return significant(key).slice(-MIN_PHONE_TAIL);
}

/** Where the index files a key: equal keys share a slot, and phone keys by phoneSlot. */
export function matchSlot(kind: FindKey, key: string): string {
	return kind === 'phone' ? phoneSlot(key) : key;
}

/** How a key looked for matches a key the index holds: only phones match in part. */
export function keyMatch(kind: FindKey, wanted: string, held: string): PhoneMatch {
	if (kind === 'phone') return phoneMatch(wanted, held);
	return wanted === held ? 'full' : 'none';
}

/** First and last name, each as matchText compares it; empty unless both are given. */
export function nameKey(firstName: unknown, lastName: unknown): string {
	const first = matchText(firstName);
	const last = matchText(lastName);
	// A separator no name holds, so "Ann Lee"+"Smith" and "Ann"+"Lee Smith" stay apart.
	return first === '' || last === '' ? '' : `${first}\u0000${last}`;
}

/** The key of a customer record (or of the fields about to be sent) for one kind of match. */
export function recordKey(record: IDataObject, kind: FindKey): string {
	if (kind === 'id') return idKey(record.id);
	if (kind === 'email') return emailKey(record.email);
	if (kind === 'phone') return phoneKey(record.phone);
	return nameKey(record.firstName, record.lastName);
}

export const KINDS: MatchKey[] = ['email', 'phone', 'name'];
const FIND_KINDS: FindKey[] = [...KINDS, 'id'];

/** The customers of one list read (and those added to it) by email, phone, name and ID. */
export class CustomerIndex {
	/** Per kind and slot (matchSlot), each customer with the key it was filed under. */
	private readonly byKind = new Map<
		FindKey,
		Map<string, Array<{ key: string; customer: IDataObject }>>
	>(FIND_KINDS.map((kind) => [kind, new Map()]));

	constructor(customers: IDataObject[]) {
		for (const customer of customers) this.add(customer);
	}

	/**
	 * Files the customer under its own keys and, when given, under those of the fields it was
	 * sent with (a reply may spell them differently, or leave them out).
	 */
	add(customer: IDataObject, sent?: IDataObject): void {
		for (const kind of FIND_KINDS) {
			const own = recordKey(customer, kind);
			this.put(kind, own, customer);
			const asSent = sent === undefined ? '' : recordKey(sent, kind);
			if (asSent !== own) this.put(kind, asSent, customer);
		}
	}

	private put(kind: FindKey, key: string, customer: IDataObject): void {
		if (key === '') return;
		const map = this.byKind.get(kind) as Map<string, Array<{ key: string; customer: IDataObject }>>;
		const slot = matchSlot(kind, key);
		const list = map.get(slot);
		if (list) list.push({ key, customer });
		else map.set(slot, [{ key, customer }]);
	}

	/**
	 * The customers whose key matches this one (keyMatch), in full or in part, or only in full,
	 * in list order, each once; none for an empty key, as `put` keeps none.
	 */
	find(kind: FindKey, key: string, only?: 'full'): IDataObject[] {
		const held = this.byKind.get(kind)?.get(matchSlot(kind, key)) ?? [];
		const matches = held.filter((entry) => {
			const match = keyMatch(kind, key, entry.key);
			return only === 'full' ? match === 'full' : match !== 'none';
		});
		return [...new Set(matches.map((entry) => entry.customer))];
	}
}
