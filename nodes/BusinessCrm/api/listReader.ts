import type { Context } from '../context';
import type { IDataObject } from 'n8n-workflow';
import { transportError } from '../errors/errors';
import { extractList, recordId } from './replyShapes';
import { MAX_PARALLEL_REQUESTS } from './pacing';
import { apiRequest, credentialSecrets } from './transport';
import type { RetryPolicy } from './retries';


/** The most items the API serves per page (spec section 8). */
export const MAX_PAGE_SIZE = 100;
/**
 * Pages read at once when the first page gives a total, unless Options › Pages Read at Once says
 * otherwise. The smallest number that reads 10,000 customers in about a second from an API 50 ms
 * away; never more than the run's gate (MAX_PARALLEL_REQUESTS) lets through anyway.
 */
export const DEFAULT_PAGES_IN_PARALLEL = 10;
/** The most pages in flight a user may ask for: the run's request gate. */
export const MAX_PAGES_IN_PARALLEL = MAX_PARALLEL_REQUESTS;
/** Without a `total` to bound it, a read stops after this many pages (10 million items). */
export const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/**
 * Pages in a row that bring no new item before a read is called stuck. The spec allows empty
 * pages, so a few are tolerated; a server that answers hasMore forever is not.
 */
export const MAX_PAGES_WITHOUT_PROGRESS = 10;
/** Reads of a list that moved under each of them before a read that must be whole gives up. */
export const MAX_READS = 3;

/** A list of the API and how to read it: every list the package reads is one of these. */
export interface ListSource {
	/** Says what the read was for, in errors ("Get many customers"). */
	what: string;
	url: string;
	/** What the list holds, in messages: "customers", "businesses"; one of them: "customer". */
	noun: string;
	one: string;
	/** Keys under `content` where the list may be (see extractList). */
	listKeys: string[];
	/** Keys that identify a record: for de-duplication and for joining pages. */
	idKeys: string[];
	/**
	 * Whether the first request already carries limit and offset. The customers list documents
	 * them; the business list does not, so its first request goes without and limit/offset are
	 * sent only once a reply shows pagination.
	 */
	pagedFromStart: boolean;
	policy: RetryPolicy;
	itemIndex?: number;
	/** Pages in flight at once once the total is known; 1 reads page after page. */
	pagesInParallel?: number;
	/** When set, a record without an id stops the read, and this says why it must have one. */
	idRequired?: string;
	/** Said after an error that stopped a read: what did not happen because of it. */
	afterwards?: string;
}

/** The customer list (spec section 4): paged by limit and offset from its first request. */
export const CUSTOMER_LIST: Omit<ListSource, 'what' | 'policy'> = {
	url: '/api/public/v1/customers',
	noun: 'customers',
	one: 'customer',
	listKeys: ['customers'],
	idKeys: ['id'],
	pagedFromStart: true,
};

/** One page of a list. */
export interface Page {
	items: IDataObject[];
	/** The id of each item, in the same order; undefined for an item without one. */
	ids: Array<string | undefined>;
	/** The total the reply gives, when it is a whole number of items. */
	total?: number;
	hasMore: boolean;
	/** The page size the API applied: its `limit`, else the items it sent. */
	applied: number;
}

async function fail(ctx: Context, source: ListSource, message: string, description: string) {
	return transportError(
		ctx,
		`${source.what} failed: ${message}`,
		`${description}${source.afterwards ? ` ${source.afterwards}` : ''}`,
		await credentialSecrets(ctx, source.itemIndex),
		source.itemIndex,
	);
}

function wholeNumber(value: number | undefined): number | undefined {
	return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** One page: `limit` items from `offset`, or the list as the API gives it without them. */
export async function readPage(
	ctx: Context,
	source: ListSource,
	offset: number,
	limit: number | undefined,
): Promise<Page> {
	const body = await apiRequest(ctx, {
		what: source.what,
		method: 'GET',
		url: source.url,
		qs: limit === undefined ? undefined : { limit, offset },
		policy: source.policy,
		itemIndex: source.itemIndex,
		listPage: true,
	});
	const page = extractList(body, source.listKeys);
	if ('problem' in page) {
		throw await fail(
			ctx,
			source,
			'the reply does not have the expected shape',
			`${page.problem} The node understands the list shapes listed in its README.`,
		);
	}
	const pagination = page.pagination;
	if (pagination?.offset !== undefined && pagination.offset !== offset) {
		throw await fail(
			ctx,
			source,
			`the API answered for offset ${pagination.offset} when offset ${offset} was asked for`,
			`The read stopped rather than skip or repeat ${source.noun}. This is an inconsistency in the API.`,
		);
	}
	const ids = page.items.map((item) => recordId(item, source.idKeys));
	const missing = source.idRequired === undefined ? -1 : ids.indexOf(undefined);
	if (missing >= 0) {
		const keys = Object.keys(page.items[missing]).slice(0, 8).join(', ') || 'none';
		throw await fail(
			ctx,
			source,
			`a ${source.one} in the list has no id`,
			`${source.idRequired} (its fields: ${keys}).`,
		);
	}
	const limitApplied = pagination?.limit;
	return {
		items: page.items,
		ids,
		// A total that is not a whole number of items bounds nothing: read as absent.
		total: wholeNumber(pagination?.total),
		hasMore: pagination?.hasMore ?? false,
		applied:
			limitApplied !== undefined && Number.isInteger(limitApplied) && limitApplied > 0
				? limitApplied
				: page.items.length,
	};
}

/** A read of a list from some offset to its end (or to the items wanted). */
export interface ListRead {
	/** Every item read, each once, in list order. */
	items: IDataObject[];
	ids: Array<string | undefined>;
	/** The offset just past the last item read: the list's length when it was read to its end. */
	end: number;
	/** False when the first item read was not the anchor asked for; then nothing else was read. */
	anchored: boolean;
	/**
	 * Whether every page began with the item the page before ended with. Then no item that was in
	 * the list for the whole read was skipped, however the pages were timed: each page is one
	 * answer of the API, and the pages join end to end. An item deleted or inserted before a page
	 * between two answers shifts that page, which then begins elsewhere.
	 */
	consistent: boolean;
	/**
	 * Whether a page began elsewhere than where the page before ended: the list moved. A read that
	 * is neither consistent nor moved had pages that could not overlap (one item, or items without
	 * ids) and could not be checked (see readSteady).
	 */
	moved: boolean;
}

/** Where a read starts and what it wants. */
export interface ReadFrom {
	/** The offset of the first page; 0 by default. */
	offset?: number;
	/** The id the item at `offset` must have; when it has another, the read stops there. */
	anchor?: string;
	/** How many items (kept items, with `keep`) to return; all by default. */
	wanted?: number;
	/** Only items it accepts are returned and counted; every item still joins the pages. */
	keep?: (item: IDataObject) => boolean;
}

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
		while (plan && ahead.size < inFlight - 1 && plan.next < plan.end - 1) {
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
			else {
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
				throw await fail(
					ctx,
					source,
					`the API kept answering hasMore: true past its own total of ${page.total} ${source.noun}`,
					`The reply for offset ${at} says more ${source.noun} follow, but total (${page.total}) says the list ended. The read stopped after ${requests} requests instead of looping; ${read.items.length} ${source.noun} had arrived. This is an inconsistency in the API.`,
				);
			}
			if (
				stalled >= MAX_PAGES_WITHOUT_PROGRESS ||
				(page.total === undefined && requests >= MAX_PAGES_WITHOUT_TOTAL)
			) {
				throw await fail(
					ctx,
					source,
					`the API kept answering hasMore: true without new ${source.noun}`,
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
			throw await fail(
				ctx,
				source,
				`the list changed while it was read, ${MAX_READS} times in a row`,
				`${source.noun.charAt(0).toUpperCase()}${source.noun.slice(1)} were deleted or inserted between the pages of every read, so no read could be trusted to hold every one that was there.`,
			);
		}
	}
}
