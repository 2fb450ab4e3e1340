import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { readList } from './pagination';
import { pagesInParallel, retryPolicy } from './validation';

/** What Find and Skip Existing match on; the values are saved in workflows. */
export type MatchKey = 'email' | 'phone' | 'name';

export const MATCH_KEY_NAMES: Record<MatchKey, string> = {
	email: 'Email',
	phone: 'Phone',
	name: 'First and Last Name',
};

function text(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number') return String(value);
	return '';
}

/** Email trimmed and in lower case. */
export function emailKey(email: unknown): string {
	return text(email).trim().toLowerCase();
}

/** Phone by its digits alone, so "+1 (555) 010-0199" and "15550100199" are one number. */
export function phoneKey(phone: unknown): string {
	return text(phone).replace(/\D/g, '');
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
export function matchSlot(kind: MatchKey, key: string): string {
	if (kind !== 'phone') return key;
	const digits = significantDigits(key);
	return digits.length < MIN_PHONE_TAIL ? digits : digits.slice(-MIN_PHONE_TAIL);
}

/** Whether a key looked for matches a key the index holds (in the same slot). */
export function keysMatch(kind: MatchKey, wanted: string, held: string): boolean {
	return kind === 'phone' ? samePhone(wanted, held) : wanted === held;
}

/** First and last name, each trimmed and in lower case; empty unless both are given. */
export function nameKey(firstName: unknown, lastName: unknown): string {
	const first = text(firstName).trim().toLowerCase();
	const last = text(lastName).trim().toLowerCase();
	// A separator no name holds, so "Ann Lee"+"Smith" and "Ann"+"Lee Smith" stay apart.
	return first === '' || last === '' ? '' : `${first}\u0000${last}`;
}

/** The key of a customer record (or of the fields about to be sent) for one kind of match. */
export function recordKey(record: IDataObject, kind: MatchKey): string {
	if (kind === 'email') return emailKey(record.email);
	if (kind === 'phone') return phoneKey(record.phone);
	return nameKey(record.firstName, record.lastName);
}

const KINDS: MatchKey[] = ['email', 'phone', 'name'];

/** The customers of one list read (and those added to it) by email, phone and name. */
export class CustomerIndex {
	/** Per kind and slot (matchSlot), each customer with the key it was filed under. */
	private readonly byKind = new Map<
		MatchKey,
		Map<string, Array<{ key: string; customer: IDataObject }>>
	>(KINDS.map((kind) => [kind, new Map()]));

	constructor(customers: IDataObject[]) {
		for (const customer of customers) this.add(customer);
	}

	add(customer: IDataObject, extra?: { kind: MatchKey; key: string }): void {
		for (const kind of KINDS) this.put(kind, recordKey(customer, kind), customer);
		if (extra && extra.key !== recordKey(customer, extra.kind)) {
			this.put(extra.kind, extra.key, customer);
		}
	}

	private put(kind: MatchKey, key: string, customer: IDataObject): void {
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
	find(kind: MatchKey, key: string): IDataObject[] {
		const held = this.byKind.get(kind)?.get(matchSlot(kind, key)) ?? [];
		const matches = held.filter((entry) => keysMatch(kind, key, entry.key));
		return [...new Set(matches.map((entry) => entry.customer))];
	}
}

/** A Create of this run that failed in a way that may have added the customer anyway. */
export interface UncertainCreate {
	itemIndex: number;
	businessId: string;
}

/**
 * What one node run of Skip Existing knows beyond the list it read: the customers it created
 * (under the key sent and the business sent to), the Creates that may have happened, and, per
 * key, the Create in progress, so that two rows of one run with one key create once.
 */
export class RunCustomers {
	readonly created = new CustomerIndex([]);
	private readonly sentTo = new WeakMap<IDataObject, string>();
	private readonly uncertain = new Map<string, Array<{ key: string; create: UncertainCreate }>>();
	private readonly pending = new Map<string, Promise<unknown>>();

	addCreated(customer: IDataObject, kind: MatchKey, key: string, businessId: string): void {
		this.sentTo.set(customer, businessId);
		this.created.add(customer, { kind, key });
	}

	/** The business a customer is in: the one it was sent to, else its record's; '' when unknown. */
	businessOf(customer: IDataObject): string {
		const sent = this.sentTo.get(customer);
		if (sent !== undefined) return sent;
		const id = customer.businessId;
		return typeof id === 'string' ? id.trim() : typeof id === 'number' ? String(id) : '';
	}

	addUncertain(kind: MatchKey, key: string, create: UncertainCreate): void {
		// Filed by slot and key, so that one number in another format finds it, as the index does.
		const id = `${kind}:${matchSlot(kind, key)}`;
		this.uncertain.set(id, [...(this.uncertain.get(id) ?? []), { key, create }]);
	}

	/** The first Create of this key that may have happened, in this business (or any: undefined). */
	uncertainCreate(kind: MatchKey, key: string, businessId?: string): UncertainCreate | undefined {
		return this.uncertain
			.get(`${kind}:${matchSlot(kind, key)}`)
			?.find(
				(entry) =>
					keysMatch(kind, key, entry.key) &&
					(businessId === undefined || entry.create.businessId === businessId),
			)?.create;
	}

	/** Runs `task` after every earlier task of the same key has ended, failed ones included. */
	async oneAtATime<T>(kind: MatchKey, key: string, task: () => Promise<T>): Promise<T> {
		// By slot: two rows with one number in two formats must not both create it.
		const id = `${kind}:${matchSlot(kind, key)}`;
		const before = this.pending.get(id) ?? Promise.resolve();
		const run = before.then(task, task);
		const settled = run.then(
			() => undefined,
			() => undefined,
		);
		this.pending.set(id, settled);
		try {
			return await run;
		} finally {
			if (this.pending.get(id) === settled) this.pending.delete(id);
		}
	}
}

const CUSTOMERS_URL = '/api/public/v1/customers';

/**
 * The list read for an item: the request n8n built for it keeps what the item's Request Options
 * set (Timeout, Proxy, Ignore SSL Issues, the credential's allowed domains) and the node's
 * headers; the method, path, query and body are the list's, not the operation's.
 */
function listRequest(request: IHttpRequestOptions): IHttpRequestOptions {
	const options: IHttpRequestOptions = { ...request, method: 'GET', url: CUSTOMERS_URL };
	delete options.body;
	delete options.qs;
	return options;
}

interface RunState {
	/** List reads by the settings they were made with: items with the same settings share one. */
	reads: Map<string, Promise<CustomerIndex>>;
	customers: RunCustomers;
}

// Keyed by the run's execute data, as the request gate is: every item of one node run shares it.
const runs = new WeakMap<object, RunState>();

function runState(ctx: IExecuteSingleFunctions): RunState {
	const run = ctx.getExecuteData();
	let state = runs.get(run);
	if (!state) {
		state = { reads: new Map(), customers: new RunCustomers() };
		runs.set(run, state);
	}
	return state;
}

/** The run's Skip Existing state, shared by every item of one node run. */
export function runCustomers(ctx: IExecuteSingleFunctions): RunCustomers {
	return runState(ctx).customers;
}

/**
 * The customer list as this item's settings read it. Items whose Request Options, Max Retries,
 * Max Total Wait and Pages Read at Once are the same (the usual case) share one read per run
 * (ceil(N/100) requests); the first item to ask reads, the others wait for it. A failed read is
 * not retried by later items of the run: the list read already retries what can be retried, and
 * each item reports the failure.
 */
export async function customerIndex(
	ctx: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<CustomerIndex> {
	const options = listRequest(request);
	const policy = retryPolicy(ctx);
	const pages = pagesInParallel(ctx);
	const { reads } = runState(ctx);
	const settings = JSON.stringify({ options, policy, pages });
	let index = reads.get(settings);
	if (!index) {
		index = readList(ctx, {
			what: 'Read the customer list',
			options,
			listKeys: ['customers'],
			idKeys: ['id'],
			wanted: Infinity,
			pagedFromStart: true,
			policy,
			pagesInParallel: pages,
			itemIndex: ctx.getItemIndex(),
		}).then((customers) => new CustomerIndex(customers));
		reads.set(settings, index);
	}
	return await index;
}
