import type { Context } from '../context';
import {
	DEFAULT_PAGES_IN_PARALLEL,
	failedRead,
	MAX_PAGE_SIZE,
	MAX_PAGES_WITHOUT_PROGRESS,
	MAX_PAGES_WITHOUT_TOTAL,
	MAX_READS,
	readPage,
	type ListRead,
	type ListSource,
	type Page,
	type ReadFrom,
} from './lists';

/** After "<what> failed: ", before "<total> <noun>": hasMore contradicts the reply's total. */
export const PAST_TOTAL = 'the API kept answering hasMore: true past its own total of';
/** After "<what> failed: ", before the noun: pages that bring nothing new. */
export const NOTHING_NEW = 'the API kept answering hasMore: true without new';
/** After "<what> failed: ", before ", <MAX_READS> times in a row". */
export const KEPT_MOVING = 'the list changed while it was read';
/** After the noun, capitalised: why no read of a list that kept moving is trusted. */
export const MOVED_UNDER_EVERY_READ =
	'were deleted or inserted between the pages of every read, so no read could be trusted to hold every one that was there.';

type Asked = { limit: number | undefined; reply: Promise<{ page: Page } | { error: unknown }> };

/**
 * Reads a list by the spec's offset pagination, in pages of 100 that overlap by one item, so a
 * read can tell whether the list moved under it: max(1, ceil((n - 1) / 99)) requests for n
 * items. Written by hand because n8n's built-in pagination has no per-page 429 retry, no runaway
 * bound, no de-duplication, no parallel pages and no check that the pages join up.
 *
 * Parallel pages: once a paged reply gives a total, the offsets up to it are known, so up to
 * `pagesInParallel` of them are asked for at once. The replies are still read one by one in
 * offset order by the same rules as page after page; a page read ahead is used only when its
 * offset is the one the sequential read would ask for next. A page that does not have the size
 * or total the first one had ends the reading ahead: the rest is read page after page.
 *
 * It cannot run away: a reply whose hasMore contradicts its own total, or pages that bring
 * nothing new, end the read with an error; items already seen are returned once. A reply for
 * another offset than the one asked for is an error too.
 */
export async function readPages(
	ctx: Context,
	source: ListSource,
	from: ReadFrom = {},
): Promise<ListRead> {
	const wanted = from.wanted ?? Infinity;
	const inFlight = Math.max(1, source.pagesInParallel ?? DEFAULT_PAGES_IN_PARALLEL);
	const start = from.offset ?? 0;
	const read: ListRead = {
		items: [],
		ids: [],
		end: start,
		anchored: true,
		consistent: true,
		moved: false,
	};
	const seen = new Set<string>();
	const ahead = new Map<number, Asked>();
	let plan: { next: number; step: number; end: number; total: number } | undefined;
	let planned = false;
	let at = start;
	let paged = source.pagedFromStart || start > 0;
	/** The id the page at `at` must begin with; undefined when nothing can be checked. */
	let expected = from.anchor;
	let requests = 0;
	let pagesRead = 0;
	let stalled = 0;
	/** Set once `until` said so: pages already asked for are read, no others. */
	let stopping = false;

	const ask = (offset: number, limit: number | undefined): Asked => {
		requests++;
		const reply = readPage(ctx, source, offset, limit).then(
			(page) => ({ page }),
			(error: unknown) => ({ error }),
		);
		return { limit, reply };
	};
	/** The limit of the next page: what is still wanted, plus the item it repeats. */
	const nextLimit = () =>
		from.keep || wanted === Infinity
			? MAX_PAGE_SIZE
			: Math.min(MAX_PAGE_SIZE, wanted - read.items.length + (expected === undefined ? 0 : 1));
	const readAhead = () => {
		while (plan && !stopping && ahead.size < inFlight - 1 && plan.next < plan.end - 1) {
			const limit =
				wanted === Infinity ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, plan.end - plan.next);
			ahead.set(plan.next, ask(plan.next, limit));
			plan.next += plan.step;
		}
	};
	// Nothing this read asked for outlives it: a failed or finished read first lets the pages in
	// flight end, whose replies are then dropped.
	const settle = async () => {
		plan = undefined;
		await Promise.all([...ahead.values()].map(async (asked) => await asked.reply));
		ahead.clear();
	};

	try {
		for (;;) {
			let asked = ahead.get(at);
			if (asked) ahead.delete(at);
			else if (stopping && expected !== undefined) {
				// Every page already asked for is read: the next read goes on from the last item.
				read.end = at + 1;
				read.unfinished = true;
				return read;
			} else {
				// Pages read ahead for other offsets than this one are of no use: page after page.
				if (ahead.size > 0) await settle();
				asked = ask(at, paged ? nextLimit() : undefined);
			}
			readAhead();
			const reply = await asked.reply;
			if ('error' in reply) throw reply.error;
			const page = reply.page;
			pagesRead++;

			if (expected !== undefined && page.ids[0] !== expected) {
				if (pagesRead === 1 && from.anchor !== undefined) return { ...read, anchored: false };
				read.consistent = false;
				// An item without an id cannot say where the page began.
				if (page.items.length === 0 || page.ids[0] !== undefined) read.moved = true;
			}
			let fresh = 0;
			page.items.forEach((item, index) => {
				const id = page.ids[index];
				if (id !== undefined) {
					if (seen.has(id)) return;
					seen.add(id);
				}
				fresh++;
				if (read.items.length >= wanted || (from.keep && !from.keep(item))) return;
				read.items.push(item);
				read.ids.push(id);
			});
			if (!page.hasMore || read.items.length >= wanted) {
				read.end = at + page.items.length;
				return read;
			}
			stalled = fresh > 0 ? 0 : stalled + 1;
			if (page.total !== undefined && at >= page.total) {
				throw await failedRead(
					ctx,
					source,
					`${PAST_TOTAL} ${page.total} ${source.noun}`,
					`The reply for offset ${at} says more ${source.noun} follow, but total (${page.total}) says the list ended. The read stopped after ${requests} requests instead of looping; ${read.items.length} ${source.noun} had arrived. This is an inconsistency in the API.`,
				);
			}
			if (
				stalled >= MAX_PAGES_WITHOUT_PROGRESS ||
				(page.total === undefined && requests >= MAX_PAGES_WITHOUT_TOTAL)
			) {
				throw await failedRead(
					ctx,
					source,
					`${NOTHING_NEW} ${source.noun}`,
					`${requests} pages were read (${read.items.length} ${source.noun}); the last ${stalled} brought nothing new${page.total === undefined ? ' and no total was given' : `, although total says ${page.total}`}. The read stopped instead of looping.`,
				);
			}

			// The next page begins with this page's last item, so the two can be seen to join. A
			// page of one item (or whose last item has no id) cannot overlap the next: unchecked.
			const count = page.items.length;
			const last = page.ids[count - 1];
			const step =
				count >= 2 && last !== undefined
					? count - 1
					: count > 0
						? count
						: Math.max(page.applied, 1);
			expected = count >= 2 ? last : undefined;
			if (expected === undefined) read.consistent = false;
			at += step;
			paged = true;
			// Time is up: no page is asked for any more, but those on their way are still read.
			if (expected !== undefined && !stopping && from.until?.()) stopping = true;

			if (plan && (plan.step !== step || page.total !== plan.total)) plan = undefined;
			// A filtered read with a limit cannot know how far it must go: page after page.
			const bounded = !from.keep || wanted === Infinity;
			if (
				!planned &&
				bounded &&
				inFlight > 1 &&
				asked.limit !== undefined &&
				page.total !== undefined
			) {
				planned = true;
				if (expected !== undefined) {
					// Past `at`, the items still wanted; the page at `at` is asked for by the loop.
					const end = Math.min(page.total, at + 1 + (wanted - read.items.length));
					plan = { next: at + step, step, end, total: page.total };
				}
			}
		}
	} finally {
		await settle();
	}
}

/**
 * A read that says whether it can be trusted to hold every item that was there throughout. One
 * whose pages could not overlap cannot see the list move under it: it is made again at once, and
 * trusted only when both give the same items in the same order, since an item one of them
 * skipped would be in the other.
 */
export async function readSteady(
	ctx: Context,
	source: ListSource,
	from: ReadFrom = {},
): Promise<ListRead> {
	const read = await readPages(ctx, source, from);
	if (read.consistent || read.moved || !read.anchored) return read;
	const again = await readPages(ctx, source, from);
	const print = (list: ListRead) =>
		JSON.stringify(list.ids.map((id, index) => id ?? list.items[index]));
	return { ...again, consistent: again.consistent || print(again) === print(read) };
}

/**
 * A read that holds every item that was in the list throughout: read again while the list moves
 * under the read, up to MAX_READS times, then an error. Find and Skip Existing rely on it: a
 * customer skipped by a read would be reported missing, or created a second time.
 */
export async function readWhole(
	ctx: Context,
	source: ListSource,
	from: ReadFrom = {},
): Promise<ListRead> {
	for (let attempt = 1; ; attempt++) {
		const read = await readSteady(ctx, source, from);
		if (read.consistent) return read;
		if (attempt === MAX_READS) {
			throw await failedRead(
				ctx,
				source,
				`${KEPT_MOVING}, ${MAX_READS} times in a row`,
				`${source.noun.charAt(0).toUpperCase()}${source.noun.slice(1)} ${MOVED_UNDER_EVERY_READ}`,
				'unavailable',
			);
		}
	}
}
