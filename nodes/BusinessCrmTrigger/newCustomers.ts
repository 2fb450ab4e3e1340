import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { businessOption, onlyOfBusiness } from './businessFilter';
import { customerIds, customerList, readCustomersFrom, type CustomerList } from './customerList';
import {
	fingerprint,
	knownSet,
	loadState,
	saveState,
	sourceOf,
	type SeenCustomers,
} from './seenCustomers';

interface Found {
	added: IDataObject[];
	/** Undefined when nothing changed, so nothing is written. */
	state?: SeenCustomers;
}

/**
 * The list read as appended to: from the last known customer on. One request when nothing is
 * new, ceil((k + 1) / 100) for k new customers. Undefined when the last known customer is no
 * longer at its offset (inserted, deleted, reordered, shrunk): then only a full read can tell.
 */
async function readAppended(
	ctx: IPollFunctions,
	list: CustomerList,
	state: SeenCustomers,
): Promise<Found | undefined> {
	const from = Math.max(0, state.count - 1);
	const tail = await readCustomersFrom(ctx, list, from);
	const ids = await customerIds(ctx, tail);
	if (state.count > 0 && ids[0] !== state.lastId) return undefined;
	const start = state.count > 0 ? 1 : 0;
	if (ids.length <= start) return { added: [] };

	const known = knownSet(state);
	const added: IDataObject[] = [];
	let knownText = state.known;
	for (let index = start; index < tail.length; index++) {
		const print = fingerprint(ids[index]);
		// Only appended customers get here, so this is a safeguard against emitting one twice.
		if (known.has(print)) continue;
		known.add(print);
		knownText += print;
		added.push(tail[index]);
	}
	return {
		added,
		state: { ...state, count: from + tail.length, lastId: ids[ids.length - 1], known: knownText },
	};
}

/** The whole list, diffed against every id seen: ceil(N/100) requests. */
async function readAll(
	ctx: IPollFunctions,
	list: CustomerList,
	state: SeenCustomers,
): Promise<Required<Found>> {
	const all = await readCustomersFrom(ctx, list, 0);
	const ids = await customerIds(ctx, all);
	const known = knownSet(state);
	const added: IDataObject[] = [];
	const prints: string[] = [];
	for (let index = 0; index < all.length; index++) {
		const print = fingerprint(ids[index]);
		prints.push(print);
		if (!known.has(print)) {
			known.add(print);
			added.push(all[index]);
		}
	}
	// Customers no longer listed are forgotten, so the state follows the list's size.
	return {
		added,
		state: { ...state, count: all.length, lastId: ids[ids.length - 1], known: prints.join('') },
	};
}

/**
 * The customers added since the last poll, in list order, each once. The first poll (and the
 * first after the credential points at another API or organization) only records the list.
 * Nothing is stored until every read succeeded, so a failed poll changes nothing and the next
 * one finds everything since the last successful poll.
 */
export async function newCustomers(ctx: IPollFunctions): Promise<IDataObject[]> {
	const list = await customerList(ctx);
	const businessId = businessOption(ctx);
	const staticData = ctx.getWorkflowStaticData('node');
	const source = sourceOf(list.baseUrl, list.organizationId);
	const state = loadState(staticData, source);

	if (state === undefined) {
		const found = await readAll(ctx, list, { source, count: 0, known: '' });
		// Checked now, so a list the Business option cannot filter fails the activation itself.
		if (businessId !== undefined) onlyOfBusiness(ctx, found.added, businessId);
		saveState(staticData, found.state);
		return [];
	}

	const found = (await readAppended(ctx, list, state)) ?? (await readAll(ctx, list, state));
	const emitted =
		businessId === undefined ? found.added : onlyOfBusiness(ctx, found.added, businessId);
	if (found.state) saveState(staticData, found.state);
	return emitted;
}
