import type { IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../BusinessCrm/api/lists';
import { readCustomerPage, type CustomerRead } from './customerList';
import { fingerprint, triggerKey } from './seenCustomers';

/** How far the sweep moves per poll: a page, less the one customer pages overlap by. */
export const SWEEP_STEP = MAX_PAGE_SIZE - 1;

/** Where a trigger's sweep read last, where it reads next, and the new customers it found there. */
interface SweepPosition {
	offset: number;
	next: number;
	found: string[];
}

/**
 * Where each activated trigger's sweep is, by trigger and list. Kept in the process, not in the
 * static data: a position written at every poll would make n8n save the whole state (11 bytes per
 * known customer) every minute, and one lost in a restart only starts the sweep over.
 */
const positions = new Map<string, SweepPosition>();

/**
 * One page of the part of the list the trigger already knows (`known` customers before the last
 * known one), at this trigger's sweep position, which then moves a page on, and back to 0 after
 * the end. A customer whose id is not remembered is new wherever it stands: this finds one
 * inserted inside the list, which the tail read cannot see while the last known customer keeps
 * its offset. Every customer there is read within ceil(known / 99) polls (pages of 100).
 *
 * A page whose new customers are still not `remembered` at the next poll is read again: the poll
 * that found them failed, or n8n dropped its result (the durable scheduler abandons a poll past
 * its timeout), and moving on would leave them for a whole cycle of the sweep.
 */
export async function sweepPage(
	ctx: IPollFunctions,
	list: string,
	known: number,
	remembered: Set<string>,
): Promise<Pick<CustomerRead, 'ids' | 'items'>> {
	const trigger = triggerKey(ctx, list);
	const last = positions.get(trigger);
	const unkept = last?.found.some((print) => !remembered.has(print)) === true;
	const saved = (unkept ? last?.offset : last?.next) ?? 0;
	const offset = saved < known ? saved : 0;
	const page = await readCustomerPage(ctx, offset);
	// An API that answers smaller pages than asked moves the sweep by what it gave.
	const next = offset + Math.max(1, Math.min(SWEEP_STEP, page.applied - 1));
	const ended = !page.hasMore || page.ids.length < page.applied || next >= known;
	const found = page.ids.map(fingerprint).filter((print) => !remembered.has(print));
	positions.set(trigger, { offset, next: ended ? 0 : next, found });
	return page;
}
