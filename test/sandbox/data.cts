/**
 * Deterministic seed data for the sandbox API server.
 *
 * Everything here is derived from an index, never from Math.random or the clock, so two sandboxes
 * started with the same counts hold identical records and a failing test can be replayed exactly.
 */
import type { SandboxBusiness, SandboxCustomer } from './server.cjs';

const MASK_64 = (1n << 64n) - 1n;

/**
 * SplitMix64's finaliser. Every step (add a constant, xor-shift, multiply by an odd number) is a
 * bijection on 64-bit integers, so distinct inputs give distinct outputs: ids generated from
 * distinct indexes can never collide, yet they look random rather than sequential, which keeps
 * clients from accidentally depending on id order.
 */
function mix64(input: bigint): bigint {
	let x = (input + 0x9e3779b97f4a7c15n) & MASK_64;
	x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
	x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
	return x ^ (x >> 31n);
}

/**
 * Id namespaces, kept in the top bits of the mixed value so that, for example, the 5th seeded
 * customer and the 5th customer added over HTTP get different tokens.
 */
export const IdSpace = {
	business: 1,
	seededCustomer: 2,
	addedCustomer: 3,
	credential: 4,
} as const;
export type IdSpace = (typeof IdSpace)[keyof typeof IdSpace];

/** 16 lowercase hex characters, unique per (space, index) for index < 2^40. */
export function token(space: IdSpace, index: number): string {
	if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 40) {
		throw new RangeError(`id index out of range: ${index}`);
	}
	return mix64((BigInt(space) << 40n) | BigInt(index))
		.toString(16)
		.padStart(16, '0');
}

const BUSINESS_NAMES = [
	'Northwind Bakery',
	'Blue Harbor Dental',
	'Maple Street Books',
	'Copperleaf Cycles',
	'Silver Fern Florist',
	'Granite Peak Fitness',
	'Lantern House Cafe',
	'Riverside Auto Care',
	'Juniper Yoga Studio',
	'Old Mill Hardware',
	'Saffron Table Catering',
	'Harborview Veterinary',
] as const;

const FIRST_NAMES = [
	'Ada',
	'Ben',
	'Chloe',
	'Dmitri',
	'Elena',
	'Farid',
	'Grace',
	'Hiro',
	'Ines',
	'Jonas',
	'Kemi',
	'Liam',
	'Maya',
	'Nikolai',
	'Olivia',
	'Pablo',
	'Quinn',
	'Rosa',
	'Sven',
	'Tara',
	'Umar',
	'Vera',
	'Wen',
	'Ximena',
	'Yusuf',
	'Zoe',
	'Amara',
	'Bruno',
	'Camille',
	'Diego',
	'Esme',
	'Felix',
	'Greta',
	'Hamza',
	'Iris',
	'Jack',
	'Keiko',
	'Luca',
	'Mila',
	'Noah',
	'Oskar',
] as const;

const LAST_NAMES = [
	'Abbott',
	'Bauer',
	'Castillo',
	'Dubois',
	'Eriksen',
	'Fischer',
	'Gallagher',
	'Haddad',
	'Ito',
	'Jansen',
	'Kowalski',
	'Lindqvist',
	'Moreau',
	'Nakamura',
	'Okafor',
	'Petrov',
	'Quispe',
	'Rossi',
	'Schmidt',
	'Tanaka',
	'Ueda',
	'Varga',
	'Walsh',
	'Xu',
	'Yilmaz',
	'Zimmermann',
	'Andersen',
	'Brennan',
	'Costa',
	'Delgado',
	'Evans',
	'Novak',
	"O'Neill",
	'Van der Berg',
	'García',
	'Müller',
	'Nguyen',
] as const;

/** Fixed epoch for seeded createdAt values: the store looks the same on every run. */
const SEED_EPOCH_MS = Date.UTC(2024, 0, 15, 9, 0, 0);
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

function slug(text: string): string {
	return text
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '');
}

function fictionalPhone(index: number): string {
	// 555-01xx is reserved for fiction; spreading over the whole 555 exchange keeps numbers varied.
	return `+1 202 555 ${String(index % 10_000).padStart(4, '0')}`;
}

export function generateBusiness(index: number): SandboxBusiness {
	const base = BUSINESS_NAMES[index % BUSINESS_NAMES.length];
	const round = Math.floor(index / BUSINESS_NAMES.length);
	// Past the list, a suffix keeps names unique so a test can look a business up by name.
	const name = round === 0 ? base : `${base} ${round + 1}`;
	return {
		id: `biz_${token(IdSpace.business, index)}`,
		name,
		email: `hello@${slug(name)}.example.com`,
		phone: fictionalPhone(1000 + index),
		createdAt: new Date(SEED_EPOCH_MS - (index + 1) * DAY_MS).toISOString(),
	};
}

export function generateBusinesses(count: number): SandboxBusiness[] {
	const out: SandboxBusiness[] = [];
	for (let i = 0; i < count; i++) out.push(generateBusiness(i));
	return out;
}

/**
 * A seeded customer. Some records lack email or phone on purpose: both are optional, and clients
 * must cope with their absence.
 */
export function generateCustomer(index: number, businessId: string): SandboxCustomer {
	const firstName = FIRST_NAMES[index % FIRST_NAMES.length];
	// A different stride for last names so first/last pairs do not repeat in lockstep.
	const lastName = LAST_NAMES[(index * 7 + 3) % LAST_NAMES.length];
	const customer: SandboxCustomer = {
		id: `cust_${token(IdSpace.seededCustomer, index)}`,
		businessId,
		firstName,
		lastName,
		// Same key order as a customer added over HTTP: optional contact fields, then createdAt.
		...(index % 15 === 14
			? {}
			: { email: `${slug(firstName)}.${slug(lastName)}.${index}@example.com` }),
		...(index % 10 === 9 ? {} : { phone: fictionalPhone(index) }),
		createdAt: new Date(SEED_EPOCH_MS + index * MINUTE_MS).toISOString(),
	};
	return customer;
}

/** Customers spread round-robin across the given businesses, in creation order. */
export function generateCustomers(
	count: number,
	businesses: readonly SandboxBusiness[],
): SandboxCustomer[] {
	if (count > 0 && businesses.length === 0) {
		throw new RangeError('cannot seed customers without at least one business');
	}
	const out: SandboxCustomer[] = new Array<SandboxCustomer>(count);
	for (let i = 0; i < count; i++)
		out[i] = generateCustomer(i, businesses[i % businesses.length].id);
	return out;
}
