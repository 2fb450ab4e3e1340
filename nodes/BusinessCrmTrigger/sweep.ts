import type { IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../BusinessCrm/api/lists';
import { readCustomerPage, type CustomerRead } from './customerList';
import { triggerKey } from './seenCustomers';

/** How far the sweep moves per poll: a page, less the one customer pages overlap by. */
export const SWEEP_STEP = MAX_PAGE_SIZE - 1;

/**
 * Where each activated trigger's next sweep reads, by trigger and list. Kept in the process, not
 * in the static data: a position written at every poll would make n8n save the whole state (11
 * bytes per known customer) every minute, and one lost in a restart only starts the sweep over.
 */
const positions = new Map<string, number>();

/**
 * One page of the part of the list the trigger already knows (`known` customers before the last
 * known one), at this trigger's sweep position, which then moves a page on, and back to 0 after
 * the end. A customer whose id is not remembered is new wherever it stands: this finds one
 * inserted inside the list, which the tail read cannot see while the last known customer keeps
 * its offset. Every customer there is read within ceil(known / 99) polls (pages of 100).
 */
export async function sweepPage(
	ctx: IPollFunctions,
	list: string,
	known: number,
): Promise<Pick<CustomerRead, 'ids' | 'items'>> {
	const trigger = triggerKey(ctx, list);
	const saved = positions.get(trigger) ?? 0;
	const offset = saved < known ? saved : 0;
	const page = await readCustomerPage(ctx, offset);
	// An API that answers smaller pages than asked moves the sweep by what it gave.
	const next = offset + Math.max(1, Math.min(SWEEP_STEP, page.applied - 1));
	const ended = !page.hasMore || page.ids.length < page.applied || next >= known;
	positions.set(trigger, ended ? 0 : next);
	return page;
}
