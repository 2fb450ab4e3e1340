import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { KEPT_MOVING, MOVED_UNDER_EVERY_READ } from '../BusinessCrm/api/listReader';
import { failedRead, MAX_PAGE_SIZE, MAX_READS } from '../BusinessCrm/api/lists';
import { onlyOfBusiness } from './businessFilter';
import { readCustomerPage, readCustomersSteady, SOURCE, type CustomerRead } from './customerList';
import { sweepPage } from './sweep';
import {
	fingerprint,
	knownSet,
	loadState,
	saveState,
	type SeenCustomers,
	type WholeRead,
} from './seenCustomers';

/** The customers of a read whose id is not in `known`, adding them to it. */
function unknownOf(
	read: Pick<CustomerRead, 'ids' | 'items'>,
	known: Set<string>,
): { added: IDataObject[]; prints: string } {
	const added: IDataObject[] = [];
	let prints = '';
	read.ids.forEach((id, index) => {
		const print = fingerprint(id);
		if (known.has(print)) return;
		known.add(print);
		prints += print;
		added.push(read.items[index]);
	});
	return { added, prints };
}

/** Where a whole read stopped: the customer at offset count - 1, if it is still there. */
type Position = Pick<SeenCustomers, 'count' | 'lastId'>;

/**
 * Where the customer a whole read stopped at went, when it is no longer at its offset: customers
 * deleted before it move it back, by at most a page (one request). Undefined when it is not there
 * (it was deleted, or customers were inserted before it): the read then starts over.
 */
async function movedBack(ctx: IPollFunctions, at: Position): Promise<Position | undefined> {
	if (at.lastId === undefined || at.count < 2) return undefined;
	const offset = Math.max(0, at.count - 1 - MAX_PAGE_SIZE);
	const page = await readCustomerPage(ctx, offset, at.count - 1 - offset);
	const index = page.ids.lastIndexOf(at.lastId);
	return index === -1 ? undefined : { count: offset + index + 1, lastId: at.lastId };
}

/**
 * Reads on with a read of the whole list (the first, which records the list and emits nothing,
 * or one after a change the tail read could not follow), from where it stopped, until the list
 * ends or `until` says the poll's time is up. A read too long for one poll so goes on at the next
 * instead of starting over (n8n's durable scheduler gives a poll 36 s). Customers deleted before
 * where it stopped are followed; any other change before it makes it start over, with every
 * customer seen so far still counted: a first read at once, and the MAX_READS-th start over
 * fails it (a read that cannot be trusted to hold every customer, and one that could otherwise
 * start over for ever without a word); a later read at the next poll.
 *
 * When the read reaches the end, what it saw replaces what is remembered, so deleted customers
 * are forgotten. Customers not remembered are emitted as they are read (not by a first read).
 */
async function readOn(
	ctx: IPollFunctions,
	state: SeenCustomers & { pass: WholeRead },
	known: Set<string>,
	businessId: string | undefined,
	until: (() => boolean) | undefined,
): Promise<{ state: SeenCustomers; added: IDataObject[] }> {
	const pass = { ...state.pass };
	const seen = knownSet(pass.seen);
	let prints = state.known;
	let at: Position = { count: state.count, lastId: state.lastId };
	const added: IDataObject[] = [];
	for (;;) {
		const resumed = at.count > 0 && at.lastId !== undefined;
		let read = await readCustomersSteady(ctx, resumed ? at.count - 1 : 0, at.lastId, until);
		if (!read.anchored) {
			const back = await movedBack(ctx, at);
			if (back !== undefined) {
				at = back;
				read = await readCustomersSteady(ctx, at.count - 1, at.lastId, until);
			}
		}
		if (read.anchored) {
			// Checked at once, so a list the Business option cannot filter fails the activation.
			if (pass.first && businessId !== undefined) onlyOfBusiness(ctx, read.items, businessId);
			read.ids.forEach((id, index) => {
				const print = fingerprint(id);
				if (!seen.has(print)) {
					seen.add(print);
					pass.seen += print;
				}
				if (pass.first || known.has(print)) return;
				known.add(print);
				prints += print;
				added.push(read.items[index]);
			});
		}
		if (read.anchored && read.consistent) {
			const stopped = { source: state.source, count: read.end, lastId: read.ids.at(-1) };
			if (read.unfinished) {
				return { state: { ...stopped, known: prints, pass }, added };
			}
			return { state: { ...stopped, known: pass.seen }, added };
		}
		pass.restarts++;
		at = { count: 0 };
		if (pass.first && pass.restarts >= MAX_READS) {
			throw await failedRead(
				ctx,
				SOURCE,
				`${KEPT_MOVING}, ${MAX_READS} times in a row`,
				`Customers ${MOVED_UNDER_EVERY_READ}`,
				'unavailable',
			);
		}
		// A later read is made again by the next poll, as it always was; a first read at once.
		if (!pass.first || until?.()) {
			return { state: { source: state.source, ...at, known: prints, pass }, added };
		}
	}
}

/**
 * The poll: read, compare with what is remembered, decide what to remember. Emits the customers
 * added since the last poll, in list order, each once.
 *
 * - The list read from the last known customer on (the tail): when that customer is still at its
 *   offset, what follows it is new. If the pages did not join up (a customer deleted or inserted
 *   before a page during the read), one may have been skipped: the new ones seen are emitted and
 *   remembered, but the count and last id are not moved on, so the next poll reads that tail again.
 * - Otherwise a whole read (readOn), which may go on across polls.
 *
 * `until` is asked between pages: true ends the reading for this poll, keeping what it found.
 * Nothing is stored until every read of the poll succeeded, so a failed poll changes nothing.
 */
export async function newCustomers(
	ctx: IPollFunctions,
	businessId: string | undefined,
	until?: () => boolean,
): Promise<IDataObject[]> {
	const remembered = await loadState(ctx);
	const { source } = remembered;
	const state: SeenCustomers = remembered.state
		? { ...remembered.state, source }
		: { source, count: 0, known: '', pass: { first: true, seen: '', restarts: 0 } };
	const known = knownSet(state.known);
	let next: SeenCustomers = state;
	let added: IDataObject[] = [];
	let whole = state.pass && { ...state, pass: state.pass };
	if (!whole) {
		const tail =
			state.count > 0 && state.lastId !== undefined
				? await readCustomersSteady(ctx, state.count - 1, state.lastId, until)
				: undefined;
		if (tail?.anchored) {
			// The known part of the list, before the tail: one page of it per poll.
			const before = state.count - 1;
			const swept =
				before > 0 ? await sweepPage(ctx, source, before, known) : { ids: [], items: [] };
			const inside = unknownOf(swept, known);
			const found = unknownOf(tail, known);
			added = [...inside.added, ...found.added];
			const prints = state.known + inside.prints + found.prints;
			next = tail.consistent
				? { source, count: tail.end, lastId: tail.ids.at(-1), known: prints }
				: { ...state, known: prints };
		} else {
			whole = {
				source,
				count: 0,
				known: state.known,
				pass: { first: false, seen: '', restarts: 0 },
			};
		}
	}
	if (whole) ({ state: next, added } = await readOn(ctx, whole, known, businessId, until));
	const emitted = businessId === undefined ? added : onlyOfBusiness(ctx, added, businessId);
	// A state kept only in the process is written even unchanged, so that n8n saves it.
	if (!remembered.saved || JSON.stringify(next) !== JSON.stringify(remembered.state)) {
		saveState(ctx, remembered, next, emitted.length > 0);
	}
	return emitted;
}
