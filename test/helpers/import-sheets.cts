/**
 * Generated imports for Customer › Create's properties: sheets of people written the ways a
 * spreadsheet writes them, a CRM that already holds some of them, and a reference model of
 * "the same person" written from docs/operations.md's words (not from the node's code, which
 * is what the properties check).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Sandbox, SandboxCustomer } from '../sandbox/server.cjs';
import { byId } from './fixtures.cjs';
import { fc } from './properties.cjs';

export const ADD = '/api/business/crm/customer/add';
export const CUSTOMERS = '/api/public/v1/customers';
/** The custom field each Create carries, so the sandbox's log says which row of which node sent it. */
export const TAG = 'importTag';

export type MatchOn = 'email' | 'name' | 'phone';

/** People with accents (NFC/NFD), a two-word first name, and a shared first name. */
const PEOPLE = [
	{ firstName: 'José', lastName: 'García', email: 'josé.garcia@example.com', digits: '0101' },
	{ firstName: 'Zoë', lastName: 'Brontë', email: 'zoe.bronte@example.com', digits: '0102' },
	{ firstName: 'Mary Ann', lastName: 'Evans', email: 'mary.ann@example.com', digits: '0103' },
	{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', digits: '0104' },
	{ firstName: 'Ada', lastName: 'Byron', email: 'ada.byron@example.com', digits: '0105' },
	{ firstName: 'Łukasz', lastName: 'Nowak', email: 'LUKASZ@example.com', digits: '0106' },
] as const;
export type Person = (typeof PEOPLE)[number];

/** What a paste leaves at a value's ends, which the docs say does not count there. */
const AT_ENDS = [' ', '  ', '\u00a0', '\u200b', '\ufeff', '\u2060', '\u00ad', '\u3164', '\u200e'];

/** One way of writing a value: the rule says each of these is still the same value. */
const writing = fc.record({
	capitals: fc.constantFrom('as is', 'upper', 'lower', 'alternate'),
	nfd: fc.boolean(),
	before: fc.constantFrom('', ...AT_ENDS),
	after: fc.constantFrom('', ...AT_ENDS),
	/** A single inner space written as a run of spaces. */
	spaceRun: fc.boolean(),
});
type Writing = typeof writing extends fc.Arbitrary<infer T> ? T : never;

function written(value: string, how: Writing): string {
	let text = value;
	if (how.capitals === 'upper') text = text.toUpperCase();
	if (how.capitals === 'lower') text = text.toLowerCase();
	if (how.capitals === 'alternate') {
		text = [...text].map((c, n) => (n % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
	}
	if (how.spaceRun) text = text.replace(/ /g, '   ');
	if (how.nfd) text = text.normalize('NFD');
	return `${how.before}${text}${how.after}`;
}

/** A row of the sheet, as the input item's json. */
export interface Row extends IDataObject {
	tag: string;
	firstName: string;
	lastName: string;
	email?: string;
	phone?: string;
	skip?: boolean;
	preview?: boolean;
}

export interface SheetOptions {
	maxRows: number;
	/** 0 unless given. */
	minRows?: number;
	/** Emails the API refuses (a space inside): a row only the API can refuse. */
	apiRefusals?: boolean;
	/** A row whose first name is only spaces and invisible characters: refused before sending. */
	blankNames?: boolean;
}

const rowArb = (options: SheetOptions) =>
	fc.record({
		person: fc.integer({ min: 0, max: PEOPLE.length - 1 }),
		first: writing,
		last: writing,
		email: fc.oneof(
			{ weight: 6, arbitrary: writing.map((how) => ({ how, kind: 'given' as const })) },
			{ weight: 1, arbitrary: fc.constant({ kind: 'missing' as const }) },
			{
				weight: 1,
				arbitrary: fc
					.constantFrom('', ' ', '\u200b')
					.map((blank) => ({ kind: 'blank' as const, blank })),
			},
			{
				weight: options.apiRefusals ? 1 : 0,
				arbitrary: fc.constant({ kind: 'refusedByApi' as const }),
			},
		),
		phone: fc.constantFrom('none', 'international', 'national'),
		blankFirst: options.blankNames
			? fc.integer({ min: 0, max: 7 }).map((n) => n === 0)
			: fc.constant(false),
		skip: fc.boolean(),
		preview: fc.boolean(),
	});

/** A sheet of minRows to maxRows rows of six people, so the same person comes back often. */
export function sheetArb(options: SheetOptions): fc.Arbitrary<Row[]> {
	return fc
		.array(rowArb(options), { minLength: options.minRows ?? 0, maxLength: options.maxRows })
		.map((drawn) =>
			drawn.map((d, n): Row => {
				const person = PEOPLE[d.person];
				const row: Row = {
					tag: `r${n + 1}`,
					firstName: d.blankFirst ? ' \u200b ' : written(person.firstName, d.first),
					lastName: written(person.lastName, d.last),
					skip: d.skip,
					preview: d.preview,
				};
				if (d.email.kind === 'given') row.email = written(person.email, d.email.how);
				if (d.email.kind === 'blank') row.email = d.email.blank;
				// The sandbox refuses an address with a space inside (a 400 for that row alone).
				if (d.email.kind === 'refusedByApi') row.email = person.email.replace('@', ' @');
				if (d.phone === 'international') row.phone = `+1 303 555 ${person.digits}`;
				if (d.phone === 'national') row.phone = `(303) 555-${person.digits}`;
				return row;
			}),
		);
}

/* -- the reference model, from docs/operations.md ------------------------------------------- */

/** Spaces, no-break spaces and the invisible characters a paste brings, which do not count at the ends. */
const END_JUNK =
	/^[\s\u00a0\u00ad\u200b-\u200f\u2060-\u2064\ufeff\u3164\u202a-\u202e\u2066-\u2069]+|[\s\u00a0\u00ad\u200b-\u200f\u2060-\u2064\ufeff\u3164\u202a-\u202e\u2066-\u2069]+$/g;

/** A value as the docs say it is compared: NFC, ends cleaned, inner runs of spaces as one, lower case. */
export function compared(value: unknown): string {
	if (typeof value !== 'string') return '';
	return value.normalize('NFC').replace(END_JUNK, '').replace(/ {2,}/g, ' ').toLowerCase();
}

/** A value as the node sends it: NFC, ends cleaned, inside as typed. */
export function sent(value: unknown): string {
	return typeof value === 'string' ? value.normalize('NFC').replace(END_JUNK, '') : '';
}

function phoneDigits(value: unknown): string {
	return typeof value === 'string' ? value.replace(/\D/g, '').replace(/^0+/, '') : '';
}

/**
 * The person a row (or customer) is under Match On, '' when it has no value to match by. Phones
 * here are one number with or without its country code, so "the shorter ends the longer" is the
 * last ten digits.
 */
export function personKey(record: Record<string, unknown>, matchOn: MatchOn): string {
	if (matchOn === 'email') return compared(record.email);
	if (matchOn === 'phone') return phoneDigits(record.phone).slice(-10);
	const [first, last] = [compared(record.firstName), compared(record.lastName)];
	return first && last ? `${first}\u0000${last}` : '';
}

/** Whether the node refuses the row before sending anything (a name without a letter). */
export function refusedBeforeSending(
	row: Row,
	matchOn: MatchOn | undefined,
	noMatchValue: string,
): boolean {
	if (sent(row.firstName) === '' || sent(row.lastName) === '') return true;
	return (
		matchOn !== undefined &&
		matchOn !== 'name' &&
		noMatchValue === 'error' &&
		personKey(row, matchOn) === ''
	);
}

/** Whether the sandbox answers this row's Create with a 400 (its email check). */
export function refusedByApi(row: Row): boolean {
	const email = sent(row.email);
	return email !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}

/* -- the CRM and the node's parameters ------------------------------------------------------ */

/** Which people the CRM holds already: in the business imported into, or in another one. */
export const crmArb = fc.array(
	fc.record({ person: fc.integer({ min: 0, max: PEOPLE.length - 1 }), elsewhere: fc.boolean() }),
	{ maxLength: 4 },
);
export type Crm = typeof crmArb extends fc.Arbitrary<infer T> ? T : never;

/** Puts exactly these customers in the sandbox, as they were typed once (capitals, NFC). */
export function seed(sandbox: Sandbox, crm: Crm): void {
	sandbox.customers.length = 0;
	crm.forEach(({ person, elsewhere }, n) => {
		const p = PEOPLE[person];
		const customer: SandboxCustomer = {
			id: `cust_seed${n}`,
			businessId: sandbox.businesses[elsewhere ? 1 : 0].id,
			firstName: p.firstName,
			lastName: p.lastName,
			email: n % 2 ? p.email.toUpperCase() : p.email,
			phone: `303-555-${p.digits}`,
			createdAt: '2026-01-01T00:00:00.000Z',
		};
		sandbox.customers.push(customer);
	});
}

/** The customers of the business imported into, as the model sees them. */
export function inBusiness(sandbox: Sandbox): SandboxCustomer[] {
	return sandbox.customers.filter((c) => c.businessId === sandbox.businesses[0].id);
}

export interface Settings {
	/** Skip Existing: on, off, or each row's `skip`. */
	skip: boolean | 'perRow';
	/** Preview Only: on, off, or each row's `preview`. */
	preview: boolean | 'perRow';
	matchOn: MatchOn;
	noMatchValue: 'error' | 'skip' | 'create';
	batching: boolean;
}

export const settingsArb = (only: Partial<Record<keyof Settings, fc.Arbitrary<never>>> = {}) =>
	fc.record<Settings>({
		skip: fc.constantFrom<Settings['skip']>(true, true, false, 'perRow'),
		preview: fc.constantFrom<Settings['preview']>(false, false, true, 'perRow'),
		matchOn: fc.constantFrom<MatchOn>('email', 'email', 'name', 'name', 'phone'),
		noMatchValue: fc.constantFrom<Settings['noMatchValue']>('error', 'skip', 'create'),
		// Batching waits a batch interval and 100 ms per batch before the first Create: kept rare.
		batching: fc.constantFrom(false, false, false, true),
		...only,
	});

/** Whether the row's Skip Existing and Preview Only are on, under the settings. */
export function rowSkips(row: Row, settings: Settings): boolean {
	return settings.skip === 'perRow' ? row.skip === true : settings.skip;
}
export function rowPreviews(row: Row, settings: Settings): boolean {
	return settings.preview === 'perRow' ? row.preview === true : settings.preview;
}

/** Where the expressions read a row: the item, the Input node's item (a later node of a chain), or a model's arguments (a tool call). */
export type RowSource = 'item' | 'input' | 'model';

function reading(source: RowSource, name: string, type: 'string' | 'boolean' = 'string'): string {
	if (source === 'input') return `$('Input').item.json.${name}`;
	if (source === 'model') return `$fromAI('${name}', 'The ${name} of the customer', '${type}')`;
	return `$json.${name}`;
}

/** Customer › Create of the rows, each value from an expression, the row's tag sent as a custom field. */
export function importParameters(
	sandbox: Sandbox,
	settings: Settings,
	node = 'Create',
	source: RowSource = 'item',
): INodeParameters {
	const field = (name: string) => `={{ ${reading(source, name)} }}`;
	const switchOf = (value: boolean | 'perRow', name: string) =>
		value === 'perRow' ? `={{ ${reading(source, name, 'boolean')} }}` : value;
	return {
		resource: 'customer',
		operation: 'create',
		businessId: byId(sandbox.businesses[0].id),
		firstName: field('firstName'),
		lastName: field('lastName'),
		additionalFields: {
			email: field('email'),
			phone: field('phone'),
			customFields: {
				field: [{ name: TAG, value: `=${node}:{{ ${reading(source, 'tag')} }}` }],
			},
		},
		skipExisting: switchOf(settings.skip, 'skip'),
		matchOn: settings.matchOn,
		noMatchValue: settings.noMatchValue,
		previewOnly: switchOf(settings.preview, 'preview'),
		...(settings.batching
			? { requestOptions: { batching: { batch: { batchSize: 3, batchInterval: 1 } } } }
			: {}),
	};
}

/** The Creates the sandbox logged, as `node:row-tag`, with the status each got. */
export function createsLogged(sandbox: Sandbox): Array<{ tag: string; status: number }> {
	return sandbox.requests
		.filter((request) => request.method === 'POST' && request.path === ADD)
		.map((request) => ({
			tag: String((request.body as IDataObject | undefined)?.[TAG] ?? ''),
			status: request.status,
		}));
}

/** Fails after `ms`: a run that does not end is a failure of its own, not a hung suite. */
export async function within<T>(ms: number, work: Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const bound = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`the run did not end within ${ms} ms`)), ms);
	});
	try {
		return await Promise.race([work, bound]);
	} finally {
		clearTimeout(timer);
	}
}
