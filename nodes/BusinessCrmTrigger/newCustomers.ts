import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { onlyOfBusiness } from './businessFilter';
import { readAllCustomers, readCustomersSteady, type CustomerRead } from './customerList';
import { sweepPage } from './sweep';
import { fingerprint, knownSet, loadState, saveState, type SeenCustomers } from './seenCustomers';

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

/**
 * The first poll (and the first after the credential points at another API or organization)
 * records the list and emits nothing. The read must be whole (see readWhole): a customer it
 * skipped, emitted later, would be an old customer taken for new.
 */
async function firstRead(
	ctx: IPollFunctions,
	source: string,
): Promise<{ state: SeenCustomers; customers: IDataObject[] }> {
	const read = await readAllCustomers(ctx);
	const { prints } = unknownOf(read, new Set());
	const state = { source, count: read.end, lastId: read.ids.at(-1), known: prints };
	return { state, customers: read.items };
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
			? await readCustomersSteady(ctx, state.count - 1, state.lastId)
			: undefined;
	if (tail?.anchored) {
		// The known part of the list, before the tail: one page of it per poll.
		const before = state.count - 1;
		const swept = before > 0 ? await sweepPage(ctx, source, before) : { ids: [], items: [] };
		const inside = unknownOf(swept, known);
		const found = unknownOf(tail, known);
		added = [...inside.added, ...found.added];
		const prints = state.known + inside.prints + found.prints;
		next = tail.consistent
			? { source, count: tail.end, lastId: tail.ids.at(-1), known: prints }
			: { ...state, source, known: prints };
	} else {
		const all = await readCustomersSteady(ctx, 0);
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
