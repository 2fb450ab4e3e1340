/**
 * A model of the trigger's promises (docs/trigger.md, "Guarantees"), checked against the trigger
 * run by n8n-core's poll machinery (test/helpers/poll-harness.cts) on the sandbox over any history
 * fast-check makes of: customers inserted, appended (up to several pages at once), deleted and
 * moved anywhere in the list; polls, polls n8n drops (abandoned past the durable scheduler's
 * timeout, or run again from the same stored state), restarts of n8n, unpublishing and
 * publishing; on n8n's classic scheduler and on the durable one with its cursors.
 *
 * The model, from the docs' words:
 * - no customer that was in the list when the workflow was first published is ever emitted
 *   ("First activation emits nothing");
 * - no customer is emitted twice, nor one that is not in the list ("Nothing twice");
 * - a customer that stays in the list is emitted within ceil((N - 1) / 99) polls after it came,
 *   N the list's size then, at least 1, plus a poll per 99 customers added since ("Nothing lost": appended, by the next poll; any
 *   change the tail read cannot follow, by the whole read of the next poll; inserted while the
 *   last known customer keeps its offset, by the sweep within that bound), counted from a
 *   restart when n8n restarted (item 2), and by the publish's own poll when it came while the
 *   workflow was unpublished (item 7);
 * - a customer deleted before it was emitted may or may not have been emitted (the docs promise
 *   nothing for a customer that does not stay), once at most.
 * Polls n8n dropped are not polls the workflow saw: what they emitted does not count, and they
 * do not count towards the bound.
 *
 * The list stays under 1,500 customers and a page costs 1 s on the package's clock (moved on by
 * the sandbox, so no real waiting): every whole read fits in one poll even on the durable
 * scheduler's 36 s ticks. Reads longer than a poll are durable.test.cts's.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Sandbox } from '../sandbox/server.cjs';
import { credentialsFor, useSandbox } from '../helpers/fixtures.cjs';
import { usePagedClock } from '../helpers/clock.cjs';
import { fc, runs } from '../helpers/properties.cjs';
import { TriggerHarness, type PollOutcome } from '../helpers/poll-harness.cjs';
import { CUSTOMER_LIST } from '../../nodes/BusinessCrm/api/lists';
import { SWEEP_STEP } from '../../nodes/BusinessCrmTrigger/sweep';

const CUSTOMERS = CUSTOMER_LIST.url;
/** What one page of the list costs on the clock. */
const PAGE_MS = 1_000;
/** n8n 2.41's budget for a durable scheduler tick at its default timeout. */
const TICK_BUDGET_MS = 36_000;
/** Under this, a whole read fits in a tick (18 s of reading, 99 new customers a page). */
const MAX_LIST = 1_500;

let sandbox: Sandbox;
useSandbox({ businesses: 2, customers: 0 }, {}, (started) => (sandbox = started));

usePagedClock(() => sandbox, CUSTOMERS, PAGE_MS);

/** The docs' bound for a customer that came while the list held `n` customers. */
const bound = (n: number) => Math.max(1, Math.ceil((n - 1) / SWEEP_STEP));
/** With `added` customers added since: the sweep covers them too, a poll per 99 (docs). */
const due = (n: number, added: number) => bound(n) + Math.ceil(added / SWEEP_STEP);

interface Pending {
	/** The number of polls the workflow had seen when the customer came (or n8n restarted). */
	since: number;
	/** How many customers the list held then. */
	largest: number;
	/** How many customers were added to the list since then. */
	added: number;
}

/** What the docs let the trigger do, given what happened. */
class Model {
	/** Customers in the list when the workflow was first published: never to be emitted. */
	readonly existing = new Set<string>();
	readonly emitted = new Set<string>();
	/** Customers in the list not emitted yet, with what their bound counts from. */
	readonly pending = new Map<string, Pending>();
	/** Polls whose result n8n kept (activations' included). */
	polls = 0;
	published = true;

	constructor(readonly durable: boolean) {
		for (const customer of sandbox.customers) this.existing.add(customer.id);
	}

	/** The list changed: new customers are pending, deleted ones need not come. */
	changed(): void {
		const ids = new Set(sandbox.customers.map((customer) => customer.id));
		for (const id of this.pending.keys()) if (!ids.has(id)) this.pending.delete(id);
		const fresh = [...ids].filter(
			(id) => !this.existing.has(id) && !this.emitted.has(id) && !this.pending.has(id),
		);
		for (const entry of this.pending.values()) entry.added += fresh.length;
		for (const id of fresh)
			this.pending.set(id, { since: this.polls, largest: ids.size, added: 0 });
	}

	/** A poll n8n kept emitted these: check them, then every deadline. */
	saw(outcome: PollOutcome, what: string): void {
		expect({ what, error: outcome.error?.message }).toEqual({ what, error: undefined });
		const inList = new Set(sandbox.customers.map((customer) => customer.id));
		for (const id of outcome.items.map((item) => String(item.id))) {
			expect({ what, id, inList: inList.has(id) }).toEqual({ what, id, inList: true });
			expect({ what, id, existing: this.existing.has(id) }).toEqual({ what, id, existing: false });
			expect({ what, id, twice: this.emitted.has(id) }).toEqual({ what, id, twice: false });
			this.emitted.add(id);
			this.pending.delete(id);
		}
		this.polls++;
		for (const [id, { since, largest, added }] of this.pending) {
			const late = this.polls - since >= due(largest, added);
			expect({ what, id, since, polls: this.polls, late }).toEqual({
				what,
				id,
				since,
				polls: this.polls,
				late: false,
			});
		}
	}

	/** n8n restarted: the bound counts from now (docs, Guarantees, item 2). */
	restarted(): void {
		for (const entry of this.pending.values()) {
			entry.since = this.polls;
			entry.largest = sandbox.customers.length;
			entry.added = 0;
		}
	}
}

/** The trigger as n8n runs it, and what n8n has stored of its static data. */
class Real {
	harness: TriggerHarness;
	/** The classic scheduler's saved copy: written at activation and by a poll that emits. */
	private saved: IDataObject = {};

	constructor(readonly durable: boolean) {
		this.harness = this.make({});
	}

	private make(staticData: IDataObject, workflowId?: string): TriggerHarness {
		const harness = new TriggerHarness(credentialsFor(sandbox), {}, staticData, workflowId);
		harness.durableCursors = this.durable;
		return harness;
	}

	private staticData(): IDataObject {
		return JSON.parse(JSON.stringify(this.harness.workflow.staticData)) as IDataObject;
	}

	/** n8n activates the workflow: the activation's poll has n8n's 5 minutes. */
	async activate(mode: 'activate' | 'init'): Promise<PollOutcome> {
		this.harness.pollBudgetMs = undefined;
		const outcome = await this.harness.activate(mode);
		if (!this.durable) this.saved = this.staticData();
		this.harness.pollBudgetMs = this.durable ? TICK_BUDGET_MS : undefined;
		return outcome;
	}

	async poll(): Promise<PollOutcome> {
		const outcome = await this.harness.poll();
		if (!this.durable && outcome.emits > 0) this.saved = this.staticData();
		return outcome;
	}

	/**
	 * A poll whose result n8n does not keep: on the durable scheduler, abandoned past its timeout
	 * (nothing committed); on the classic one, run and then undone (static data as before it).
	 */
	async droppedPoll(): Promise<void> {
		if (this.durable) {
			this.harness.abandonNext = true;
			await this.harness.poll();
			return;
		}
		const before = this.staticData();
		await this.harness.poll();
		const data = this.harness.workflow.staticData;
		for (const key of Object.keys(data)) Reflect.deleteProperty(data, key);
		Object.assign(data, before);
	}

	/** The same workflow from what n8n stored (the process goes on: what it keeps stays). */
	reloaded(): void {
		const stored = this.durable
			? (JSON.parse(JSON.stringify(this.harness.restarted().workflow.staticData)) as IDataObject)
			: (JSON.parse(JSON.stringify(this.saved)) as IDataObject);
		this.harness = this.make(stored, this.harness.workflowId);
	}
}

type Command = fc.AsyncCommand<Model, Real>;

/** An offset in a list of `length` customers, from a fraction. */
const at = (fraction: number, length: number) => Math.min(length, Math.floor(fraction * length));

class Insert implements Command {
	constructor(
		readonly where: number,
		readonly count: number,
	) {}
	check = () => sandbox.customers.length + this.count <= MAX_LIST;
	run(model: Model): Promise<void> {
		sandbox.addCustomers(this.count, { at: at(this.where, sandbox.customers.length) });
		model.changed();
		return Promise.resolve();
	}
	toString = () => `insert ${this.count} at ${this.where.toFixed(3)}`;
}

class Append implements Command {
	constructor(readonly count: number) {}
	check = () => sandbox.customers.length + this.count <= MAX_LIST;
	run(model: Model): Promise<void> {
		sandbox.addCustomers(this.count);
		model.changed();
		return Promise.resolve();
	}
	toString = () => `append ${this.count}`;
}

class Delete implements Command {
	constructor(readonly where: number) {}
	check = () => sandbox.customers.length > 0;
	run(model: Model): Promise<void> {
		sandbox.customers.splice(at(this.where, sandbox.customers.length - 1), 1);
		model.changed();
		return Promise.resolve();
	}
	toString = () => `delete at ${this.where.toFixed(3)}`;
}

class Move implements Command {
	constructor(
		readonly from: number,
		readonly to: number,
	) {}
	check = () => sandbox.customers.length > 1;
	run(model: Model): Promise<void> {
		const [moved] = sandbox.customers.splice(at(this.from, sandbox.customers.length - 1), 1);
		sandbox.customers.splice(at(this.to, sandbox.customers.length), 0, moved);
		model.changed();
		return Promise.resolve();
	}
	toString = () => `move ${this.from.toFixed(3)} to ${this.to.toFixed(3)}`;
}

/** As many deleted as inserted before the last customer: only the sweep can find the new one. */
class Replace implements Command {
	constructor(
		readonly gone: number,
		readonly where: number,
	) {}
	check = () => sandbox.customers.length > 2;
	run(model: Model): Promise<void> {
		const before = sandbox.customers.length - 1;
		sandbox.customers.splice(at(this.gone, before - 1), 1);
		sandbox.addCustomers(1, { at: at(this.where, before - 1) });
		model.changed();
		return Promise.resolve();
	}
	toString = () => `replace ${this.gone.toFixed(3)} by one at ${this.where.toFixed(3)}`;
}

class Poll implements Command {
	check = (model: Readonly<Model>) => model.published;
	async run(model: Model, real: Real): Promise<void> {
		model.saw(await real.poll(), 'poll');
	}
	toString = () => 'poll';
}

/** A poll n8n does not keep, then the poll that runs from the same stored state. */
class DroppedPoll implements Command {
	check = (model: Readonly<Model>) => model.published;
	async run(model: Model, real: Real): Promise<void> {
		await real.droppedPoll();
		model.saw(await real.poll(), 'the poll after a dropped one');
	}
	toString = () => 'dropped poll, poll';
}

class Restart implements Command {
	check = (model: Readonly<Model>) => model.published;
	async run(model: Model, real: Real): Promise<void> {
		real.reloaded();
		model.restarted();
		model.saw(await real.activate('init'), 'the poll of a restart');
	}
	toString = () => 'restart';
}

class Unpublish implements Command {
	check = (model: Readonly<Model>) => model.published;
	run(model: Model, real: Real): Promise<void> {
		model.published = false;
		real.reloaded();
		return Promise.resolve();
	}
	toString = () => 'unpublish';
}

class Publish implements Command {
	check = (model: Readonly<Model>) => !model.published;
	async run(model: Model, real: Real): Promise<void> {
		model.published = true;
		model.saw(await real.activate('activate'), 'the poll of a publish');
	}
	toString = () => 'publish';
}

const fraction = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });

const commands = fc.commands(
	[
		fc.tuple(fraction, fc.integer({ min: 1, max: 3 })).map(([w, n]) => new Insert(w, n)),
		fc.integer({ min: 1, max: 350 }).map((n) => new Append(n)),
		fraction.map((w) => new Delete(w)),
		fc.tuple(fraction, fraction).map(([gone, where]) => new Replace(gone, where)),
		fc.tuple(fraction, fraction).map(([from, to]) => new Move(from, to)),
		fc.constant(new Poll()),
		fc.constant(new Poll()),
		fc.constant(new DroppedPoll()),
		fc.constant(new Restart()),
		fc.constant(new Unpublish()),
		fc.constant(new Publish()),
	],
	{ maxCommands: 30 },
);

/** Runs one history from a first publish on `initial` customers, then polls until all came. */
async function history(durable: boolean, initial: number, steps: Iterable<Command>): Promise<void> {
	sandbox.seedCustomers(initial);
	const model = new Model(durable);
	const real = new Real(durable);
	const first = await real.activate('activate');
	expect(first.emits).toBe(0);
	model.saw(first, 'the first publish');
	await fc.asyncModelRun(() => ({ model, real }), steps);
	if (!model.published) await new Publish().run(model, real);
	// Every customer still pending is due within its bound: poll until then.
	const last = Math.max(
		0,
		...[...model.pending.values()].map((p) => p.since + due(p.largest, p.added)),
	);
	while (model.polls < last) await new Poll().run(model, real);
	expect([...model.pending.keys()]).toEqual([]);
}

describe('the trigger against a model of its promises', () => {
	it('emits every customer that stays once, within the bound, and no customer that was there at publishing', async () => {
		await fc.assert(
			fc.asyncProperty(fc.boolean(), fc.integer({ min: 0, max: 300 }), commands, history),
			runs(30),
		);
	});
});

describe('histories kept as examples', () => {
	const ids = (outcome: PollOutcome) => outcome.items.map((customer) => String(customer.id));

	// Found while writing the model (the property's default runs did not reach it): a poll n8n
	// abandoned had found, by the sweep, a customer inserted inside the list; the sweep moved on,
	// so the kept polls after it missed that customer for a whole cycle (5 kept polls at 250
	// customers after two such polls, for a bound of 3).
	it('a customer the sweep found in an abandoned poll comes at the next kept poll', async () => {
		sandbox.seedCustomers(250);
		const real = new Real(true);
		expect((await real.activate('activate')).emits).toBe(0);
		await real.poll();
		sandbox.customers.splice(5, 1);
		const [inserted] = sandbox.addCustomers(1, { at: 150 });
		real.harness.abandonNext = true;
		await real.harness.poll();
		expect(real.harness.dropped.map((customer) => customer.id)).toEqual([inserted.id]);
		expect(ids(await real.poll())).toEqual([inserted.id]);
		expect(ids(await real.poll())).toEqual([]);
	});

	// Found while writing the model: a list that grows by 99 or more customers at every poll
	// keeps the sweep from reaching its end, so a customer inserted behind it waits until the
	// growth slows; the bound then counts a poll per 99 customers added.
	it('a list growing by 100 customers a poll holds the sweep back; the customer comes within the bound once it slows', async () => {
		sandbox.seedCustomers(250);
		const real = new Real(false);
		await real.activate('activate');
		// The sweep has read offset 0 and moved on.
		for (let poll = 0; poll < 4; poll++) await real.poll();
		sandbox.customers.splice(5, 1);
		const [inserted] = sandbox.addCustomers(1, { at: 10 });
		const emitted: string[] = [];
		let added = 0;
		for (let poll = 0; poll < 6; poll++) {
			added += sandbox.addCustomers(100).length;
			emitted.push(...ids(await real.poll()).filter((id) => id === inserted.id));
		}
		const polls = due(250, added) - 6;
		for (let poll = 0; poll < polls; poll++) {
			emitted.push(...ids(await real.poll()).filter((id) => id === inserted.id));
		}
		expect(emitted).toEqual([inserted.id]);
	});
});
