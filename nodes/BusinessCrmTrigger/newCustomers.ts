import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { transportError } from '../BusinessCrm/shared/errors';
import { onlyOfBusiness } from './businessFilter';
import { readCustomers, type ListRead } from './customerList';
import { fingerprint, knownSet, loadState, saveState, type SeenCustomers } from './seenCustomers';

/**
 * Reads of the whole list at the first poll before it gives up: each must be consistent, or a
 * customer skipped by it would later be taken for a new one.
 */
const FIRST_READS = 3;

/** The customers of a read whose id is not in `known`, adding them to it. */
function unknownOf(read: ListRead, known: Set<string>): { added: IDataObject[]; prints: string } {
	const added: IDataObject[] = [];
	let prints = '';
	read.ids.forEach((id, index) => {
		const print = fingerprint(id);
		if (known.has(print)) return;
		known.add(print);
		prints += print;
		added.push(read.customers[index]);
	});
	return { added, prints };
}

/**
 * A read of the list from `offset` on that says whether it can be trusted to hold every customer
 * that was there throughout. One whose pages could not overlap (an API that answers one customer
 * per page) cannot see the list move under it: it is made again at once, and trusted only when
 * both give the same customers in the same order, since a customer one of them skipped would be
 * in the other.
 */
async function readSteady(ctx: IPollFunctions, offset: number, anchor?: string): Promise<ListRead> {
	const read = await readCustomers(ctx, offset, anchor);
	if (read.consistent || read.moved || !read.anchored) return read;
	const again = await readCustomers(ctx, offset, anchor);
	// The ids alone decide: a read that lost its anchor or moved reads other customers too.
	const same = JSON.stringify(again.ids) === JSON.stringify(read.ids);
	return { ...again, consistent: again.consistent || same };
}

/**
 * The first poll (and the first after the credential points at another API or organization)
 * records the list and emits nothing. A read during which the list moved may have skipped a
 * customer that was there all along; emitted later, it would be an old customer taken for new.
 */
async function firstRead(
	ctx: IPollFunctions,
	source: string,
): Promise<{ state: SeenCustomers; customers: IDataObject[] }> {
	const known = new Set<string>();
	let prints = '';
	for (let attempt = 1; ; attempt++) {
		const read = await readSteady(ctx, 0);
		prints += unknownOf(read, known).prints;
		if (read.consistent) {
			const state = { source, count: read.end, lastId: read.ids.at(-1), known: prints };
			return { state, customers: read.customers };
		}
		if (attempt === FIRST_READS) {
			throw transportError(
				ctx,
				`Read customers failed: the list changed while it was read, ${FIRST_READS} times in a row`,
				'Customers were deleted or inserted between the pages of every read, so the trigger cannot tell which customers were there before it started. Nothing was remembered; the next poll tries again.',
				[],
			);
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
 * - Otherwise the whole list. A consistent read replaces what is remembered, so deleted customers
 *   are forgotten; one that is not forgets nothing and leaves the next poll to read it all again.
 *
 * Nothing is stored until every read succeeded, so a failed poll changes nothing.
 */
export async function newCustomers(
	ctx: IPollFunctions,
	businessId: string | undefined,
): Promise<IDataObject[]> {
	const { source, state } = await loadState(ctx);
	if (state === undefined) {
		const first = await firstRead(ctx, source);
		// Checked now, so a list the Business option cannot filter fails the activation itself.
		if (businessId !== undefined) onlyOfBusiness(ctx, first.customers, businessId);
		saveState(ctx, first.state);
		return [];
	}

	const known = knownSet(state);
	let next: SeenCustomers;
	let added: IDataObject[];
	const tail =
		state.count > 0 && state.lastId !== undefined
			? await readSteady(ctx, state.count - 1, state.lastId)
			: undefined;
	if (tail?.anchored) {
		const found = unknownOf(tail, known);
		added = found.added;
		next = tail.consistent
			? { source, count: tail.end, lastId: tail.ids.at(-1), known: state.known + found.prints }
			: { ...state, source, known: state.known + found.prints };
	} else {
		const all = await readSteady(ctx, 0);
		const found = unknownOf(all, known);
		added = found.added;
		next = all.consistent
			? {
					source,
					count: all.end,
					lastId: all.ids.at(-1),
					known: all.ids.map(fingerprint).join(''),
				}
			: { source, count: 0, known: state.known + found.prints };
	}
	const emitted = businessId === undefined ? added : onlyOfBusiness(ctx, added, businessId);
	if (JSON.stringify(next) !== JSON.stringify(state)) saveState(ctx, next);
	return emitted;
}
