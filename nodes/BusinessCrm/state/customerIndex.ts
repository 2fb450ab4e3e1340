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
 * Phone by its digits alone, so "+1 (555) 010-0199" and "15550100199" are one number; NFKC
 * first, so full-width digits (Japanese and Chinese input) count as digits.
 */
export function phoneKey(phone: unknown): string {
	return trimmedText(phone).normalize('NFKC').replace(/\D/g, '');
}

/**
 * A customer ID as the API gives it, cut at the ends as all text is (trimmedText), nothing else:
 * case counts, since the spec does not say its `cust_<token>` tokens are case-blind, and a
 * folded ID could answer another customer.
 */
export function idKey(id: unknown): string {
	return trimmedText(id);
}

/** A number this short matches only the same digits; one this long also ends longer numbers. */
export const MIN_PHONE_TAIL = 7;

/** A phone key without leading zeros: a trunk prefix (0) or an international prefix (00). */
function significantDigits(key: string): string {
	return key.replace(/^0+(?=\d)/, '');
}

/**
 * Whether two phone keys are one number: the same digits once leading zeros are dropped, or
 * the shorter, of at least 7 digits, ends the longer. So a number matches itself with or
 * without a country code or trunk prefix ("(202) 555-0236" and "+1 202 555 0236"; "020 7946
 * 0958" and "+44 20 7946 0958"), and a number given without its area code matches every
 * number that ends with it: that is the price of the rule.
 */
export function samePhone(a: string, b: string): boolean {
	const [shorter, longer] = [significantDigits(a), significantDigits(b)].sort(
		(x, y) => x.length - y.length,
	);
	if (shorter === longer) return true;
	return shorter.length >= MIN_PHONE_TAIL && longer.endsWith(shorter);
}

/**
 * Where the index files a key. Equal keys share a slot; phone keys that samePhone joins share
 * their last 7 significant digits, so a lookup compares only the numbers of one slot.
 */
export function matchSlot(kind: FindKey, key: string): string {
	if (kind !== 'phone') return key;
	const digits = significantDigits(key);
	return digits.length < MIN_PHONE_TAIL ? digits : digits.slice(-MIN_PHONE_TAIL);
}

/** Whether a key looked for matches a key the index holds (in the same slot). */
export function keysMatch(kind: FindKey, wanted: string, held: string): boolean {
	return kind === 'phone' ? samePhone(wanted, held) : wanted === held;
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
	 * The customers whose key matches this one (keysMatch), in list order, each once; none for
	 * an empty key, as `put` keeps none.
	 */
	find(kind: FindKey, key: string): IDataObject[] {
		const held = this.byKind.get(kind)?.get(matchSlot(kind, key)) ?? [];
		const matches = held.filter((entry) => keysMatch(kind, key, entry.key));
		return [...new Set(matches.map((entry) => entry.customer))];
	}
}
