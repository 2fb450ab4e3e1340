import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { transportError } from '../BusinessCrm/shared/errors';
import { extractList, recordId } from '../BusinessCrm/shared/output';
import {
	DEFAULT_PAGES_IN_PARALLEL,
	MAX_PAGE_SIZE,
	MAX_PAGES_WITHOUT_PROGRESS,
	MAX_PAGES_WITHOUT_TOTAL,
} from '../BusinessCrm/shared/pagination';
import {
	apiRequest,
	credentialSecrets,
	DEFAULT_RETRY_POLICY,
} from '../BusinessCrm/shared/transport';

/**
 * The list reader: the trigger's only way to the customer list. Pages overlap by one customer,
 * so a read can tell whether the list moved under it (see readCustomers).
 */

const WHAT = 'Read customers';
/** A poll must end: a request without an answer in this time fails it (and changes nothing). */
const REQUEST_TIMEOUT_MS = 60_000;

export interface CustomerPage {
	customers: IDataObject[];
	/** The id of each customer, in the same order. */
	ids: string[];
	/** The total the reply gives, when it is a whole number of customers. */
	total?: number;
	hasMore: boolean;
	/** The page size the API applied: its `limit`, else the customers it sent. */
	applied: number;
}

async function fail(ctx: IPollFunctions, message: string, description: string): Promise<Error> {
	return transportError(
		ctx,
		`${WHAT} failed: ${message}`,
		description,
		await credentialSecrets(ctx),
	);
}

/**
 * One page of the list. A customer without an id stops the poll: the trigger tells new customers
 * from known ones by id, so one it could not recognise would be emitted on every poll.
 */
export async function readPage(
	ctx: IPollFunctions,
	offset: number,
	limit = MAX_PAGE_SIZE,
): Promise<CustomerPage> {
	const body = await apiRequest(ctx, {
		what: WHAT,
		options: {
			method: 'GET',
			url: '/api/public/v1/customers',
			qs: { limit, offset },
			timeout: REQUEST_TIMEOUT_MS,
		},
		policy: DEFAULT_RETRY_POLICY,
		listPage: true,
	});
	const page = extractList(body, ['customers']);
	if ('problem' in page) {
		throw await fail(
			ctx,
			'the reply does not have the expected shape',
			`${page.problem} The node understands the list shapes listed in its README.`,
		);
	}
	const pagination = page.pagination;
	if (pagination?.offset !== undefined && pagination.offset !== offset) {
		throw await fail(
			ctx,
			`the API answered for offset ${pagination.offset} when offset ${offset} was asked for`,
			'The read stopped rather than skip or repeat customers. This is an inconsistency in the API; nothing was emitted or remembered.',
		);
	}
	const ids: string[] = [];
	for (const customer of page.items) {
		const id = recordId(customer, ['id']);
		if (id === undefined) {
			const keys = Object.keys(customer).slice(0, 8).join(', ') || 'none';
			throw await fail(
				ctx,
				'a customer in the list has no id',
				`The trigger recognises customers it has seen by their id (cust_…), but this record has none (its fields: ${keys}). Nothing was emitted or remembered; the next poll tries again.`,
			);
		}
		ids.push(id);
	}
	const total = pagination?.total;
	const limitApplied = pagination?.limit;
	return {
		customers: page.items,
		ids,
		// A total that is not a whole number of customers bounds nothing: read as absent.
		total: total !== undefined && Number.isSafeInteger(total) && total >= 0 ? total : undefined,
		hasMore: pagination?.hasMore ?? false,
		applied:
			limitApplied !== undefined && Number.isInteger(limitApplied) && limitApplied > 0
				? limitApplied
				: page.items.length,
	};
}

export interface ListRead {
	/** Every customer read, each once, in list order. */
	customers: IDataObject[];
	ids: string[];
	/** The offset just past the last customer read: the list's length when it was read. */
	end: number;
	/** False when the first customer read was not the anchor asked for; then nothing else was read. */
	anchored: boolean;
	/**
	 * Whether every page began with the customer the page before ended with. Then no customer that
	 * was in the list for the whole read was skipped, however the pages were timed: each page is
	 * one answer of the API, and the pages join end to end. A customer deleted or inserted before
	 * a page between two answers shifts that page, which then begins elsewhere.
	 */
	consistent: boolean;
	/**
	 * Whether a page began elsewhere than where the page before ended: the list moved. A read that
	 * is neither consistent nor moved had a page of one customer, which cannot overlap the next,
	 * and could not be checked (see readSteady in newCustomers.ts).
	 */
	moved: boolean;
}

type Reply = { page: CustomerPage } | { error: unknown };

/**
 * The customers from `offset` to the end of the list, in pages of 100 that overlap by one:
 * max(1, ceil((n - 1) / 99)) requests for n customers from the offset on. With an `anchor`, the
 * customer at `offset` must be that one, or the read stops after its first page. Once a page
 * gives the total, the pages up to it are asked for 10 at a time.
 */
export async function readCustomers(
	ctx: IPollFunctions,
	offset: number,
	anchor?: string,
): Promise<ListRead> {
	const read: ListRead = {
		customers: [],
		ids: [],
		end: offset,
		anchored: true,
		consistent: true,
		moved: false,
	};
	const seen = new Set<string>();
	/** Pages asked for ahead of the one being read, by offset. */
	const ahead = new Map<number, Promise<Reply>>();
	const ask = (at: number): Promise<Reply> =>
		readPage(ctx, at).then(
			(page) => ({ page }),
			(error: unknown) => ({ error }),
		);
	let plan: { next: number; step: number; total: number } | undefined;
	let at = offset;
	/** The id the page at `at` must begin with; undefined when nothing can be checked. */
	let expected = anchor;
	let requests = 0;
	let stalled = 0;

	try {
		for (;;) {
			const asked = ahead.get(at) ?? ask(at);
			ahead.delete(at);
			// The page after this one is asked for first, the ones ahead of it next.
			while (plan && ahead.size < DEFAULT_PAGES_IN_PARALLEL - 1 && plan.next < plan.total - 1) {
				ahead.set(plan.next, ask(plan.next));
				plan.next += plan.step;
			}
			const reply = await asked;
			requests++;
			if ('error' in reply) throw reply.error;
			const page = reply.page;
			if (expected !== undefined && page.ids[0] !== expected) {
				if (requests === 1 && anchor !== undefined) return { ...read, anchored: false };
				read.consistent = false;
				read.moved = true;
			}
			let fresh = 0;
			page.ids.forEach((id, index) => {
				if (seen.has(id)) return;
				seen.add(id);
				read.ids.push(id);
				read.customers.push(page.customers[index]);
				fresh++;
			});
			if (!page.hasMore) {
				read.end = at + page.customers.length;
				return read;
			}
			stalled = fresh > 0 ? 0 : stalled + 1;
			if (page.total !== undefined && at >= page.total) {
				throw await fail(
					ctx,
					`the API kept answering hasMore: true past its own total of ${page.total} customers`,
					`The reply for offset ${at} says more customers follow, but total (${page.total}) says the list ended. The read stopped after ${requests} requests instead of looping; nothing was emitted or remembered.`,
				);
			}
			if (stalled >= MAX_PAGES_WITHOUT_PROGRESS || requests >= MAX_PAGES_WITHOUT_TOTAL) {
				throw await fail(
					ctx,
					'the API kept answering hasMore: true without new customers',
					`${requests} pages were read; the last ${stalled} brought no customer not read before. The read stopped instead of looping; nothing was emitted or remembered.`,
				);
			}
			// A page of one customer cannot overlap the next: that read cannot be checked.
			const step = page.applied > 1 ? page.applied - 1 : 1;
			expected = page.applied > 1 ? page.ids.at(-1) : undefined;
			if (expected === undefined) read.consistent = false;
			at += step;

			if (plan && (plan.step !== step || page.total !== plan.total)) plan = undefined;
			// A page is needed while it starts before the last customer: the one before ends there.
			if (!plan && requests === 1 && page.total !== undefined) {
				plan = { next: at + step, step, total: page.total };
			}
		}
	} finally {
		// Nothing this read asked for outlives it; replies no longer needed are dropped.
		await Promise.all(ahead.values());
	}
}
