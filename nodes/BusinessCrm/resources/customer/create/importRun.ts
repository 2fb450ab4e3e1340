import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteSingleFunctions,
} from 'n8n-workflow';

/** A request of a row, held to its run (ImportRun.gate). */
export interface RunGate {
	withdrawIf: () => boolean;
	failed: () => void;
}

/** One input row of a node run of Create. */
export interface ImportRow {
	/** n8n's item index (from 0). */
	index: number;
	/** How a person finds it in their sheet: "row 5 (Edsger Dijkstra)". */
	label: string;
	/** Set when the node can tell before sending anything that the row cannot be created. */
	refusal?: NodeOperationError;
	/** Whether this row's refusal stops the run (no Continue On Fail, not a preview). */
	stops: boolean;
	arrivedAt: number;
}

/** After a refusal the node found before sending: what it means for the other rows. */
export const NOTHING_SENT =
	'No customer was created: the node checks every row before it sends the first Create, so fix this row and run the node again.';

/** How a stopped run's words begin when rows were created, and when none was; how they end. */
export const STOPPED_BEFORE = 'Before the node stopped,';
export const NONE_CREATED = 'No row of this run was created before the node stopped.';
export const NO_OTHER_ROW = 'No other row was created.';

/** Beyond Batching's interval: RoutingNode's own sleep between batches ends before this. */
const ARRIVAL_MARGIN_MS = 100;

/** "row 5 (Edsger Dijkstra)". */
export function rowLabel(index: number, firstName: unknown, lastName: unknown): string {
	const name = [firstName, lastName]
		.filter((part): part is string => typeof part === 'string' && part.trim() !== '')
		.map((part) => part.trim())
		.join(' ');
	return `row ${index + 1}${name ? ` (${name})` : ''}`;
}

function listed(rows: ImportRow[], ids: Map<number, string>): string {
	const shown = rows.slice(0, 20).map((row) => {
		const id = ids.get(row.index);
		return id ? `${row.label} as ${id}` : row.label;
	});
	const more = rows.length > shown.length ? ` and ${rows.length - shown.length} more` : '';
	return `${shown.join('; ')}${more}`;
}

/**
 * One node run of Create: every row is checked before the first Create leaves, a run that
 * stops sends nothing more, and its error says which rows were created before it stopped.
 */
export class ImportRun {
	private readonly rows = new Map<number, ImportRow>();
	private readonly finishedRows = new Set<number>();
	private readonly createdIds = new Map<number, string>();
	private readonly maybeCreated = new Set<number>();
	private everyRowIn?: Promise<void>;
	private openedAt = 0;
	private batchIntervalMs = 0;
	/** When the first row arrived: Batching's spacing counts from it. */
	private firstArrivedAt?: number;
	/** The first row refused before sending that stops the run, if any: then no row sends. */
	private firstRefused?: ImportRow;
	/** Settled once every row has its outcome: one promise, however many rows wait for it. */
	private readonly everyRowDone: Promise<void>;
	private allFinished!: () => void;
	/** The run's account, made once: every failed row of a stopped run asks for it. */
	private account?: Promise<{ words: string; data: IDataObject }>;
	/** Set once a row's failure stops the run: no further Create is sent. */
	stopped = false;
	/** What earlier tries of this node run (Settings › Retry On Fail) created, by row. */
	private readonly earlierCreated: ReadonlyMap<number, IDataObject>;
	/** The rows whose Create in an earlier try may or may not have happened. */
	private readonly earlierMaybe: ReadonlySet<number>;
	private readonly customers = new Map<number, IDataObject>();

	/** `earlier`: the try before this one, when Retry On Fail runs the node again. */
	constructor(earlier?: ImportRun) {
		// One promise for every waiting row: a callback wrapped around the last per waiting row
		// grew with the input and overflowed the stack at about 16,000 failed rows.
		this.everyRowDone = new Promise<void>((resolve) => (this.allFinished = resolve));
		this.earlierCreated = new Map(earlier?.customers);
		this.earlierMaybe = new Set(earlier?.maybeCreated);
		// A try's account is the node run's: what earlier tries wrote stays written.
		for (const [row, customer] of this.earlierCreated) this.created(row, customer);
		for (const row of this.earlierMaybe) this.maybeCreated.add(row);
	}

	/** The customer an earlier try of this node run created for this row, if one did. */
	createdBefore(row: number): IDataObject | undefined {
		return this.earlierCreated.get(row);
	}

	/** Whether an earlier try of this node run sent this row's Create with an unknown outcome. */
	mayHaveCreatedBefore(row: number): boolean {
		return this.earlierMaybe.has(row);
	}

	has(index: number): boolean {
		return this.rows.has(index);
	}

	get size(): number {
		return this.rows.size;
	}

	/** An error message of this row, naming the row when the run has more than one. */
	named(row: ImportRow, message: string): string {
		if (this.rows.size < 2) return message;
		return `${row.label.charAt(0).toUpperCase()}${row.label.slice(1)}: ${message}`;
	}

	/** Rows arrive in input order, so what every row asks of them is noted here, once. */
	arrive(row: ImportRow): void {
		this.rows.set(row.index, row);
		this.firstArrivedAt ??= row.arrivedAt;
		if (row.refusal && row.stops) this.firstRefused ??= row;
	}

	/**
	 * Resolves once every row of the node run has arrived. RoutingNode hands each input item to
	 * the operation in one synchronous loop, sleeping only between batches when Settings ›
	 * Batching is on: so all rows are in once no row has come for a macrotask, or for that
	 * interval. n8n's timers, not the package clock: RoutingNode's sleep runs on them.
	 */
	async allArrived(batchIntervalMs: number): Promise<void> {
		this.batchIntervalMs = batchIntervalMs;
		this.everyRowIn ??= (async () => {
			for (;;) {
				const seen = this.rows.size;
				await sleep(batchIntervalMs > 0 ? batchIntervalMs + ARRIVAL_MARGIN_MS : 0);
				if (this.rows.size === seen) break;
			}
			this.openedAt = Date.now();
		})();
		await this.everyRowIn;
	}

	/** Batching's spacing, kept for the Creates once every row is checked. */
	async ownTurn(row: ImportRow): Promise<void> {
		if (this.batchIntervalMs === 0) return;
		const at = this.openedAt + (row.arrivedAt - (this.firstArrivedAt ?? row.arrivedAt));
		if (at > Date.now()) await sleep(at - Date.now());
	}

	/**
	 * What a row's requests ask of the run: nothing more is sent once it stopped, and a failure
	 * without Continue On Fail stops it, so the rows after it send nothing.
	 */
	gate(ctx: IExecuteSingleFunctions): RunGate {
		return {
			withdrawIf: () => this.stopped,
			failed: () => {
				if (!ctx.continueOnFail()) this.stopped = true;
			},
		};
	}

	/** A row refused before sending that stops the run, if any: then no row sends. */
	get refusedRow(): ImportRow | undefined {
		return this.firstRefused;
	}

	created(row: number, customer: IDataObject): void {
		this.customers.set(row, customer);
		const id = customer.id;
		this.createdIds.set(row, typeof id === 'string' || typeof id === 'number' ? String(id) : '');
	}

	mayHaveCreated(row: number): void {
		this.maybeCreated.add(row);
	}

	finished(row: number): void {
		this.finishedRows.add(row);
		if (this.finishedRows.size >= this.rows.size) this.allFinished();
	}

	/**
	 * What the run wrote before it stopped, once every row has its outcome: in words for the
	 * error's description, and as data for an Error Trigger workflow. Made once per run, as it
	 * no longer changes then.
	 */
	async written(): Promise<{ words: string; data: IDataObject }> {
		if (this.finishedRows.size < this.rows.size) await this.everyRowDone;
		this.account ??= Promise.resolve(this.describeWrites());
		return await this.account;
	}

	private describeWrites(): { words: string; data: IDataObject } {
		const rows = [...this.rows.values()].sort((a, b) => a.index - b.index);
		const created = rows.filter((row) => this.createdIds.has(row.index));
		const maybe = rows.filter((row) => this.maybeCreated.has(row.index));
		const words = [
			created.length === 0
				? NONE_CREATED
				: `${STOPPED_BEFORE} ${created.length} ${created.length === 1 ? 'row was' : 'rows were'} created: ${listed(created, this.createdIds)}.`,
			maybe.length === 0
				? ''
				: ` ${maybe.length === 1 ? 'This row' : 'These rows'} may or may not have been created (the Create failed after it was sent): ${listed(maybe, new Map())}.`,
			` ${NO_OTHER_ROW}`,
		].join('');
		const data = {
			rowsCreated: created.map((row) => ({
				row: row.index + 1,
				itemIndex: row.index,
				id: this.createdIds.get(row.index) || null,
			})),
			rowsMaybeCreated: maybe.map((row) => ({ row: row.index + 1, itemIndex: row.index })),
		};
		return { words, data };
	}
}

const runs = new WeakMap<object, ImportRun>();

/**
 * The node run this item belongs to, by its execute data (one object for every item of a node
 * run). Settings › Retry On Fail tries the node again with the same object: a row that arrives
 * twice starts a new try, which knows what the tries before it wrote.
 */
export function importRun(ctx: IExecuteSingleFunctions): ImportRun {
	const key = ctx.getExecuteData();
	let run = runs.get(key);
	if (!run || run.has(ctx.getItemIndex())) {
		run = new ImportRun(run);
		runs.set(key, run);
	}
	return run;
}
