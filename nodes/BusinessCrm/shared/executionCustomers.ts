import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import {
	CustomerIndex,
	keysMatch,
	KINDS,
	matchSlot,
	recordKey,
	type MatchKey,
} from './customerIndex';
import { readList } from './pagination';
import { pagesInParallel, retryPolicy } from './validation';

/** Where a Create was sent from: a node, one of its runs, and the item. */
export interface CreateOrigin {
	nodeName: string;
	/** The run's execute data, as n8n gave it to every item of that node run. */
	run: object;
	itemIndex: number;
}

/** A Create of this execution that failed in a way that may have added the customer anyway. */
export interface UncertainCreate extends CreateOrigin {
	businessId: string;
}

/**
 * What one execution knows beyond the lists it read: the customers every Create of this package
 * created in it (under the fields sent and the business sent to), the Creates that may have
 * happened, and, per key, the Skip Existing Create in progress, so that two rows with one key
 * create once.
 */
export class ExecutionCustomers {
	readonly created = new CustomerIndex([]);
	/** How many customers were created so far; each created customer's number in that count. */
	private createdCount = 0;
	private readonly createdAs = new WeakMap<IDataObject, number>();
	private readonly sentTo = new WeakMap<IDataObject, string>();
	private readonly uncertain = new Map<string, Array<{ key: string; create: UncertainCreate }>>();
	private readonly pending = new Map<string, Promise<unknown>>();

	/** A customer a Create added, filed under its reply's keys and the keys of the fields `sent`. */
	addCreated(customer: IDataObject, sent: IDataObject, businessId: string): void {
		this.createdCount++;
		this.createdAs.set(customer, this.createdCount);
		this.sentTo.set(customer, businessId);
		this.created.add(customer, sent);
	}

	/** A mark to give `createdSince` later: the customers created up to now are before it. */
	get mark(): number {
		return this.createdCount;
	}

	/** The created customers of this key that were added after `mark`. */
	createdSince(mark: number, kind: MatchKey, key: string): IDataObject[] {
		return this.created
			.find(kind, key)
			.filter((customer) => (this.createdAs.get(customer) ?? 0) > mark);
	}

	/** The business a customer is in: the one it was sent to, else its record's; '' when unknown. */
	businessOf(customer: IDataObject): string {
		const sent = this.sentTo.get(customer);
		if (sent !== undefined) return sent;
		const id = customer.businessId;
		return typeof id === 'string' ? id.trim() : typeof id === 'number' ? String(id) : '';
	}

	/** A Create whose outcome is unknown, filed under every key the fields `sent` have. */
	addUncertain(sent: IDataObject, create: UncertainCreate): void {
		for (const kind of KINDS) {
			const key = recordKey(sent, kind);
			if (key === '') continue;
			// Filed by slot and key, so that one number in another format finds it, as the index does.
			const id = `${kind}:${matchSlot(kind, key)}`;
			this.uncertain.set(id, [...(this.uncertain.get(id) ?? []), { key, create }]);
		}
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

interface ListRead {
	index: Promise<CustomerIndex>;
	/** ExecutionCustomers.mark when the read started: customers created before it are in it. */
	mark: number;
	/** The node run that started the read. */
	run: object;
	/** Whether later node runs may use it: not once it failed, or a Create may have gone astray. */
	shared: boolean;
}

interface ExecutionState {
	/** List reads by the settings they were made with: items with the same settings share one. */
	reads: Map<string, ListRead>;
	customers: ExecutionCustomers;
}

const executions = new WeakMap<object, ExecutionState>();

/**
 * One object per execution, beside which the state is kept (nothing is stored in it, so nothing
 * is saved with the execution): n8n's flow context, which every node run of an execution gets,
 * and so every tool call of an AI Agent (each its own node run) and every Business CRM node of
 * the workflow. A resumed waiting execution gets a new one, so it reads the list afresh.
 */
function executionOf(ctx: IExecuteSingleFunctions): object {
	try {
		return ctx.getContext('flow');
	} catch {
		// n8n throws when the run has no execution data (a tool called outside a workflow
		// execution): such a call shares nothing, as a node run shares nothing with the next.
		return ctx.getExecuteData();
	}
}

function executionState(ctx: IExecuteSingleFunctions): ExecutionState {
	const execution = executionOf(ctx);
	let state = executions.get(execution);
	if (!state) {
		state = { reads: new Map(), customers: new ExecutionCustomers() };
		executions.set(execution, state);
	}
	return state;
}

/** The execution's Create state, shared by every Business CRM node run of one execution. */
export function executionCustomers(ctx: IExecuteSingleFunctions): ExecutionCustomers {
	return executionState(ctx).customers;
}

/**
 * Later node runs of the execution read the list again: after a Create that may have happened,
 * a list read before it cannot say whether the customer is there.
 */
export function unshareReads(ctx: IExecuteSingleFunctions): void {
	for (const read of executionState(ctx).reads.values()) read.shared = false;
}

/**
 * The customer list as this item's settings read it, and the mark of when the read started.
 * Items whose Request Options, Max Retries, Max Total Wait and Pages Read at Once are the same
 * (the usual case) share one read per execution (ceil(N/100) requests), across node runs and
 * nodes; the first item to ask reads, the others wait for it. A failed read is not retried by
 * later items of the run that made it (the list read already retries what can be retried, and
 * each item reports the failure), but a later node run reads again.
 */
async function listRead(
	ctx: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<{ index: CustomerIndex; mark: number }> {
	const options = listRequest(request);
	const policy = retryPolicy(ctx);
	const pages = pagesInParallel(ctx);
	const { reads, customers } = executionState(ctx);
	const settings = JSON.stringify({ options, policy, pages });
	const run = ctx.getExecuteData();
	let read = reads.get(settings);
	if (!read || (!read.shared && read.run !== run)) {
		const started: ListRead = {
			index: readList(ctx, {
				what: 'Read the customer list',
				options,
				listKeys: ['customers'],
				idKeys: ['id'],
				wanted: Infinity,
				pagedFromStart: true,
				policy,
				pagesInParallel: pages,
				itemIndex: ctx.getItemIndex(),
			}).then((list) => new CustomerIndex(list)),
			mark: customers.mark,
			run,
			shared: true,
		};
		// Each item that awaits the read reports its failure; this only stops later runs using it.
		started.index.catch(() => (started.shared = false));
		reads.set(settings, started);
		read = started;
	}
	return { index: await read.index, mark: read.mark };
}

/** The customer list as this item's settings read it (see listRead). */
export async function customerIndex(
	ctx: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<CustomerIndex> {
	return (await listRead(ctx, request)).index;
}

function sameId(a: IDataObject, b: IDataObject): boolean {
	return a.id !== undefined && a.id !== null && String(a.id) === String(b.id);
}

/**
 * The customers of this key: those the list read holds, then those a Create of this execution
 * added after the read started (a later read holds the earlier ones), unless the list has them.
 */
export async function findCustomers(
	ctx: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
	kind: MatchKey,
	key: string,
): Promise<IDataObject[]> {
	const { index, mark } = await listRead(ctx, request);
	const listed = index.find(kind, key);
	const created = executionCustomers(ctx)
		.createdSince(mark, kind, key)
		.filter((customer) => !listed.some((other) => sameId(other, customer)));
	return [...listed, ...created];
}
