import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { trimmedText } from '../values';
import { KeyTurns } from './keyTurns';
import {
	CustomerIndex,
	keyMatch,
	KINDS,
	matchSlot,
	recordKey,
	type FindKey,
	type MatchKey,
} from './customerIndex';
import { readWhole } from '../api/listReader';
import { CUSTOMER_LIST } from '../api/lists';
import { requestSettings } from '../api/requestSettings';
import { crmOf } from '../api/requestCredential';
import { listOfItem } from '../params/options';

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

interface ListRead {
	index: Promise<CustomerIndex>;
	/** ExecutionCustomers.mark when the read started: customers created before it are in it. */
	mark: number;
	/** The node run that started the read. */
	run: object;
	/** Whether later node runs may use it: not once a Create may have gone astray. */
	shared: boolean;
	/** Set once it failed: nobody asks it again, neither a later item nor a retry of the node. */
	failed: boolean;
}

/**
 * What one execution knows of one CRM beyond the lists it read: the customers every Create of
 * this package created in it (under the fields sent and the business sent to), and the Creates
 * that may have happened.
 */
export class ExecutionCustomers {
	/** List reads by the settings they were made with: items with the same settings share one. */
	readonly reads = new Map<string, ListRead>();
	readonly created = new CustomerIndex([]);
	/** How many customers were created so far; each created customer's number in that count. */
	private createdCount = 0;
	private readonly createdAs = new WeakMap<IDataObject, number>();
	private readonly sentTo = new WeakMap<IDataObject, string>();
	private readonly uncertain = new Map<string, Array<{ key: string; create: UncertainCreate }>>();
	/**
	 * What previews of this execution would create, and from which row: a later preview (the
	 * next batch of Loop Over Items, a second Create node) predicts "already there" for a row the
	 * real run would skip because an earlier node run created it.
	 */
	readonly wouldCreate = new CustomerIndex([]);
	readonly wouldCreateFrom = new WeakMap<IDataObject, CreateOrigin & { label: string }>();

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
	createdSince(mark: number, kind: FindKey, key: string): IDataObject[] {
		return this.created
			.find(kind, key)
			.filter((customer) => (this.createdAs.get(customer) ?? 0) > mark);
	}

	/** The business a customer is in: the one it was sent to, else its record's; '' when unknown. */
	businessOf(customer: IDataObject): string {
		const sent = this.sentTo.get(customer);
		if (sent !== undefined) return sent;
		return trimmedText(customer.businessId);
	}

	/**
	 * Later node runs of the execution read this CRM's list again: after a Create that may have
	 * happened, a list read before it cannot say whether the customer is there.
	 */
	unshareReads(): void {
		for (const read of this.reads.values()) read.shared = false;
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

	/**
	 * The first Create of this key that may have happened, in this business (or any: undefined).
	 * A full match only: a phone that matches in part is taken for another customer's, as Skip
	 * Existing takes it.
	 */
	uncertainCreate(kind: MatchKey, key: string, businessId?: string): UncertainCreate | undefined {
		return this.uncertain
			.get(`${kind}:${matchSlot(kind, key)}`)
			?.find(
				(entry) =>
					keyMatch(kind, key, entry.key) === 'full' &&
					(businessId === undefined || entry.create.businessId === businessId),
			)?.create;
	}
}

interface ExecutionState {
	/** By CRM (crmOf): nodes whose credentials point at other CRMs or organizations share nothing. */
	crms: Map<string, ExecutionCustomers>;
	turns: KeyTurns;
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
		state = { crms: new Map(), turns: new KeyTurns() };
		executions.set(execution, state);
	}
	return state;
}

/** What the execution knows of the CRM this item's credential points at, shared by its node runs. */
export async function executionCustomers(
	ctx: IExecuteSingleFunctions,
): Promise<ExecutionCustomers> {
	const { crms } = executionState(ctx);
	const crm = await crmOf(ctx, ctx.getItemIndex());
	let customers = crms.get(crm);
	if (!customers) {
		customers = new ExecutionCustomers();
		crms.set(crm, customers);
	}
	return customers;
}

/**
 * The customer list as this item's settings read it, the mark of when the read started, and
 * what the execution knows of the same CRM.
 * Items whose Request Options, Max Retries, Max Total Wait and Pages Read at Once are the same
 * (the usual case) share one read per execution (ceil((N-1)/99) requests), across node runs and
 * nodes; the first item to ask reads, the others wait for it. A read that failed is never asked
 * again: the items that waited for it report its failure, and whoever asks later (a later item,
 * the next try of Settings › Retry On Fail, a later node run) reads again.
 */
export async function listRead(
	ctx: IExecuteSingleFunctions,
): Promise<{ index: CustomerIndex; mark: number; customers: ExecutionCustomers }> {
	const request = requestSettings(ctx, ctx.getItemIndex());
	const source = listOfItem(ctx, CUSTOMER_LIST, 'Read the customer list');
	const customers = await executionCustomers(ctx);
	const { reads } = customers;
	const { policy, pagesInParallel: pages } = source;
	const settings = JSON.stringify({ request, policy, pages });
	const run = ctx.getExecuteData();
	let read = reads.get(settings);
	if (!read || read.failed || (!read.shared && read.run !== run)) {
		const started: ListRead = {
			index: readWhole(ctx, source).then(({ items }) => new CustomerIndex(items)),
			mark: customers.mark,
			run,
			shared: true,
			failed: false,
		};
		// Each item that awaits the read reports its failure; this only stops others using it.
		started.index.catch(() => (started.failed = true));
		reads.set(settings, started);
		read = started;
	}
	return { index: await read.index, mark: read.mark, customers };
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
	kind: FindKey,
	key: string,
): Promise<IDataObject[]> {
	const { index, mark, customers } = await listRead(ctx);
	const listed = index.find(kind, key);
	const created = customers
		.createdSince(mark, kind, key)
		.filter((customer) => !listed.some((other) => sameId(other, customer)));
	return [...listed, ...created];
}

/** The execution's turns per match key (see KeyTurns). */
export function keyTurns(ctx: IExecuteSingleFunctions): KeyTurns {
	return executionState(ctx).turns;
}
