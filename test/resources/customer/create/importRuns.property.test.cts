/**
 * Generated imports, real runs with Skip Existing on: one customer per new person however the
 * run goes (API faults, Retry On Fail, 2-3 Create nodes, a re-run), every run ends, and a run
 * that stops accounts for exactly what the sandbox logged as created. Sheets, CRM and model:
 * test/helpers/import-sheets.cts.
 */
import { sleep, type IDataObject, type INodeExecutionData } from 'n8n-workflow';
import { type Sandbox } from '../../../sandbox/server.cjs';
import { runChain, runNode, runToolCall } from '../../../helpers/harness.cjs';
import { credentialsFor, useSandbox } from '../../../helpers/fixtures.cjs';
import { fc, runs } from '../../../helpers/properties.cjs';
import {
	NONE_CREATED,
	STOPPED_BEFORE,
} from '../../../../nodes/BusinessCrm/resources/customer/create/importRun';
import {
	ADD,
	CUSTOMERS,
	TAG,
	crmArb,
	createsLogged,
	importParameters,
	inBusiness,
	personKey,
	refusedBeforeSending,
	refusedByApi,
	seed,
	settingsArb,
	sheetArb,
	within,
	type Row,
	type RowSource,
	type Settings,
} from '../../../helpers/import-sheets.cjs';

type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

/** The Request Options › Timeout of a run whose fault is a Create that never answers. */
const TIMEOUT_MS = 300;

/**
 * One API fault per case, tied to what the case generated, not to timing: a 429 on the n-th
 * list read or Create (the node waits and sends it again, whichever row it hits), a 500 on the
 * first list read, or a 500 or
 * a Create that never answers for the first Create of one row (the customer is then created
 * once the run is over: its outcome was unknown to the node).
 */
type Fault =
	| { kind: 'none' }
	| { kind: 'rateLimit'; path: string; after: number }
	| { kind: 'listReadFails' }
	| { kind: 'serverError' | 'noAnswer'; row: number };

const faultArb = fc.oneof(
	{ weight: 2, arbitrary: fc.constant<Fault>({ kind: 'none' }) },
	fc
		.record({ path: fc.constantFrom(ADD, CUSTOMERS), after: fc.nat(3) })
		.map((rule): Fault => ({ kind: 'rateLimit', ...rule })),
	fc.nat(11).map((row): Fault => ({ kind: 'serverError', row })),
	fc.nat(11).map((row): Fault => ({ kind: 'noAnswer', row })),
	fc.constant<Fault>({ kind: 'listReadFails' }),
);

/** The faults after which a stopped run has rows to account for: the Create's outcome is unknown. */
const afterSending = fc.oneof(
	fc.nat(11).map((row): Fault => ({ kind: 'serverError', row })),
	fc.nat(11).map((row): Fault => ({ kind: 'noAnswer', row })),
);

/** A tool call is one set of a model's arguments: the first row of the sheet. */
function oneCallOf(rows: Row[], mode: Mode): Row[] {
	return mode.kind === 'tool' ? rows.slice(0, 1) : rows;
}

type Mode =
	| { kind: 'node'; retry?: { maxTries: number; waitBetweenTries: number } }
	| { kind: 'chain'; nodes: number }
	| { kind: 'tool' };

const modeArb = fc.oneof(
	fc.constant<Mode>({ kind: 'node' }),
	fc
		.integer({ min: 2, max: 3 })
		.map((maxTries): Mode => ({ kind: 'node', retry: { maxTries, waitBetweenTries: 1 } })),
	fc.integer({ min: 2, max: 3 }).map((nodes): Mode => ({ kind: 'chain', nodes })),
	fc.constant<Mode>({ kind: 'tool' }),
);

const onErrorArb = fc.constantFrom<OnError>(
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
);

interface Outcome {
	names: string[];
	items: Record<string, INodeExecutionData[]>;
	errors: Record<
		string,
		(Error & { context?: IDataObject; description?: string | null }) | undefined
	>;
}

describe('Customer › Create, generated imports: real runs with Skip Existing', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, {}, (started) => (sandbox = started));

	/** Held Creates, answered once the run is over. */
	const held: Array<() => void> = [];
	// A case that failed before settling leaves nothing hanging for the next.
	afterEach(() => held.splice(0).forEach((release) => release()));

	function applyFault(fault: Fault, rows: Row[]): void {
		sandbox.resetFaults();
		sandbox.onRequest = undefined;
		if (fault.kind === 'none') return;
		if (fault.kind === 'rateLimit') {
			sandbox.setFaults({
				rateLimitBurst: { path: fault.path, after: fault.after, count: 1, retryAfter: 0.01 },
			});
			return;
		}
		if (fault.kind === 'listReadFails') {
			// A 500 is not retried on a read: the rows waiting for the list fail with it.
			sandbox.setFaults({ serverError: { path: CUSTOMERS, count: 1, status: 500 } });
			return;
		}
		if (rows.length === 0) return;
		const tag = rows[fault.row % rows.length].tag;
		let struck = false;
		sandbox.onRequest = async (entry) => {
			const sentTag = String((entry.body as IDataObject | undefined)?.[TAG] ?? '');
			if (entry.path !== ADD || struck || sentTag.split(':')[1] !== tag) return;
			struck = true;
			// A hook that throws is answered 500 by the sandbox, before anything is created.
			if (fault.kind === 'serverError') throw new Error('the fault this case generated');
			await new Promise<void>((release) => held.push(release));
		};
	}

	/** Answers the held Creates and waits until the sandbox has answered every request. */
	async function settle(): Promise<void> {
		for (const release of held.splice(0)) release();
		// A held Create whose client gave up no longer counts in flight: wait for its answer too.
		const answering = () => sandbox.inFlight > 0 || sandbox.requests.some((r) => r.status === 0);
		for (let spins = 0; answering() && spins < 400; spins++) await sleep(5);
		expect(answering()).toBe(false);
	}

	async function runImport(
		rows: Row[],
		settings: Settings,
		onError: OnError,
		mode: Mode,
		timeout: boolean,
	): Promise<Outcome> {
		const credentials = credentialsFor(sandbox);
		const parametersOf = (name: string, source: RowSource) => {
			const parameters = importParameters(sandbox, settings, name, source);
			if (timeout) {
				parameters.requestOptions = {
					...(parameters.requestOptions as IDataObject | undefined),
					timeout: TIMEOUT_MS,
				};
			}
			return parameters;
		};
		if (mode.kind === 'chain') {
			const names = Array.from({ length: mode.nodes }, (_, n) => `Create${n + 1}`);
			const { items, errors } = await runChain({
				credentials,
				items: rows,
				nodes: names.map((name) => ({ name, parameters: parametersOf(name, 'input'), onError })),
			});
			return { names, items, errors: errors as Outcome['errors'] };
		}
		// A tool call reads the row from the model's arguments ($fromAI).
		const parameters = parametersOf('Create', mode.kind === 'tool' ? 'model' : 'item');
		if (mode.kind === 'tool') {
			try {
				const items = await runToolCall({
					credentials,
					parameters,
					items: rows,
					asTool: true,
					onError,
				});
				return { names: ['Create'], items: { Create: items }, errors: {} };
			} catch (caught) {
				return { names: ['Create'], items: { Create: [] }, errors: { Create: caught as Error } };
			}
		}
		const result = await runNode({
			credentials,
			parameters,
			items: rows,
			onError,
			retryOnFail: mode.retry,
		});
		return {
			names: ['Create'],
			items: { Create: [...result.items, ...result.errorItems] },
			errors: { Create: result.error as Outcome['errors'][string] },
		};
	}

	/** The customers this case created in the business, by person under Match On. */
	function createdByPerson(settings: Settings): Map<string, string[]> {
		const byPerson = new Map<string, string[]>();
		for (const customer of inBusiness(sandbox)) {
			if (customer.id.startsWith('cust_seed')) continue;
			const key = personKey(customer, settings.matchOn);
			if (key === '') continue;
			byPerson.set(key, [...(byPerson.get(key) ?? []), String(customer[TAG])]);
		}
		return byPerson;
	}

	const importCase = (
		modes: fc.Arbitrary<Mode>,
		onErrors = onErrorArb,
		faults = faultArb,
		minRows = 0,
		refusals = true,
	) =>
		fc.record({
			rows: sheetArb({ maxRows: 10, minRows, apiRefusals: true, blankNames: refusals }),
			crm: crmArb,
			settings: settingsArb({
				skip: fc.constant(true) as never,
				preview: fc.constant(false) as never,
				...(refusals ? {} : { noMatchValue: fc.constantFrom('skip', 'create') as never }),
			}),
			onError: onErrors,
			mode: modes,
			fault: faults,
		});

	/** Property 3: one customer per new person, after the run and after running it again. */
	const onePerPerson = (modes: fc.Arbitrary<Mode>) =>
		fc.asyncProperty(
			importCase(modes),
			async ({ rows: drawn, crm, settings, onError, mode, fault }) => {
				const rows = oneCallOf(drawn, mode);
				seed(sandbox, crm);
				const seeded = new Set(inBusiness(sandbox).map((c) => personKey(c, settings.matchOn)));
				applyFault(fault, rows);
				const first = await within(
					20_000,
					runImport(rows, settings, onError, mode, fault.kind === 'noAnswer'),
				);
				await settle();
				const twice = (byPerson: Map<string, string[]>) =>
					[...byPerson].filter(([key, tags]) => tags.length > 1 || seeded.has(key));
				expect(twice(createdByPerson(settings))).toEqual([]);

				// Run again, without the fault: the rows that went through are found.
				applyFault({ kind: 'none' }, rows);
				sandbox.clearLog();
				const again = await within(20_000, runImport(rows, settings, onError, mode, false));
				await settle();
				const byPerson = createdByPerson(settings);
				expect(twice(byPerson)).toEqual([]);
				const stopped = Object.values(again.errors).some((error) => error !== undefined);
				if (!stopped) {
					const newPeople = new Set(
						rows
							.filter(
								(row) =>
									!refusedBeforeSending(row, settings.matchOn, settings.noMatchValue) &&
									!refusedByApi(row),
							)
							.map((row) => personKey(row, settings.matchOn))
							.filter((key) => key !== '' && !seeded.has(key)),
					);
					expect([...byPerson.keys()].sort()).toEqual([...newPeople].sort());
				}
				const firstStopped = Object.values(first.errors).some((error) => error !== undefined);
				if (fault.kind === 'none' && !firstStopped) {
					// The re-run created no one who has a value to be found by.
					const keyed = new Set(
						rows.filter((row) => personKey(row, settings.matchOn) !== '').map((row) => row.tag),
					);
					const created = createsLogged(sandbox).filter(
						({ tag, status }) => status === 201 && keyed.has(tag.split(':')[1]),
					);
					expect(created).toEqual([]);
				}
			},
		);

	it('3. one customer per new person: after a run with a fault in one node, 2-3 nodes or a tool call, and after a re-run', async () => {
		await fc.assert(
			onePerPerson(modeArb.filter((mode) => !('retry' in mode && mode.retry))),
			runs(10),
		);
	});

	it('3. one customer per new person with Retry On Fail', async () => {
		await fc.assert(
			onePerPerson(modeArb.filter((mode) => mode.kind === 'node' && mode.retry !== undefined)),
			runs(6),
		);
	});

	/** Property 4: every run ends, and a stopped run's account is the sandbox's log of Creates. */
	// Sheets of 2 rows or more: a run of one row has no account, its own error says it all.
	const accountIsTheLog = (modes: fc.Arbitrary<Mode>, faults = faultArb, minRows = 2) =>
		fc.asyncProperty(
			// Under Continue the run does not stop: its account is its output. No row refused
			// before sending (the run would send nothing): rows only the API refuses.
			importCase(modes, fc.constant<OnError>('stopWorkflow'), faults, minRows, false),
			async ({ rows: drawn, crm, settings, onError, mode, fault }) => {
				const rows = oneCallOf(drawn, mode);
				seed(sandbox, crm);
				sandbox.clearLog();
				applyFault(fault, rows);
				const outcome = await within(
					20_000,
					runImport(rows, settings, onError, mode, fault.kind === 'noAnswer'),
				);
				await settle();
				const error = outcome.errors.Create;
				const logged = createsLogged(sandbox);
				const createdRows = new Set(
					logged.filter(({ status }) => status === 201).map(({ tag }) => tag.split(':')[1]),
				);
				const context = error?.context ?? {};
				if (!error) return;
				if (context.rowsCreated === undefined) {
					// Refused before anything was sent.
					expect(logged).toEqual([]);
					return;
				}
				const rowsCreated = context.rowsCreated as Array<{
					row: number;
					itemIndex: number;
					id: string;
				}>;
				const rowsMaybe = context.rowsMaybeCreated as Array<{ row: number; itemIndex: number }>;
				const tagOf = (itemIndex: number) => rows[itemIndex].tag;
				// Each row named as created was: the sandbox holds its customer, with that row's tag.
				for (const { itemIndex, id } of rowsCreated) {
					expect(sandbox.customers.find((c) => c.id === id)?.[TAG]).toBe(
						`Create:${tagOf(itemIndex)}`,
					);
				}
				// Each row the sandbox created was named, as created or maybe created.
				const named = new Set(
					[...rowsCreated, ...rowsMaybe].map(({ itemIndex }) => tagOf(itemIndex)),
				);
				expect([...createdRows].filter((tag) => !named.has(tag))).toEqual([]);
				expect(error.description).toContain(
					rowsCreated.length === 0
						? NONE_CREATED
						: `${STOPPED_BEFORE} ${rowsCreated.length} row${rowsCreated.length === 1 ? '' : 's'} ${rowsCreated.length === 1 ? 'was' : 'were'} created: `,
				);
			},
		);

	it('4. a run that stops names every row the sandbox created, as created or maybe created', async () => {
		await fc.assert(
			// Three rows or more and a fault in most cases, so that most runs stop with rows to name.
			accountIsTheLog(
				// Not a tool call: one row, whose own error is its account.
				fc.constant<Mode>({ kind: 'node' }),
				fc.oneof(afterSending, faultArb),
				3,
			),
			runs(8),
		);
	});

	// Found on the code before the fix: with Retry On Fail the final error names only the rows of the last
	// try, not the rows earlier tries of this node run created or may have created.
	it('4. with Retry On Fail too, across all the tries', async () => {
		// Cases that can show it (a row that fails after it was sent, beside other rows), so that
		// a run on any seed finds it while the finding stands.
		const retries = fc
			.integer({ min: 2, max: 3 })
			.map((maxTries): Mode => ({ kind: 'node', retry: { maxTries, waitBetweenTries: 1 } }));
		await fc.assert(accountIsTheLog(retries, afterSending, 3), runs(8));
	});

	describe('counterexamples fast-check found', () => {
		// Property 4 with Retry On Fail, found with a Create that never answered for row 1 (rows 1
		// and 3 one person, row 2 another; 3 tries), made smaller by hand, as shrinking waits out
		// each timeout: a 500 for row 1's first Create, row 2 created in the first try. Found on the code
		// before the fix: the final error, of the second try, names neither.
		it('the final error after Retry On Fail names the rows every try created', async () => {
			const rows: Row[] = [
				{ tag: 'r1', firstName: 'Łukasz', lastName: 'Nowak', email: 'lukasz@example.com' },
				{ tag: 'r2', firstName: 'Zoë', lastName: 'Brontë', email: 'zoe.bronte@example.com' },
			];
			const settings: Settings = {
				skip: true,
				preview: false,
				matchOn: 'email',
				noMatchValue: 'skip',
				batching: false,
			};
			seed(sandbox, []);
			applyFault({ kind: 'serverError', row: 0 }, rows);
			const { errors } = await runImport(
				rows,
				settings,
				'stopWorkflow',
				{ kind: 'node', retry: { maxTries: 2, waitBetweenTries: 1 } },
				false,
			);
			await settle();
			const created = sandbox.customers.find((c) => c[TAG] === 'Create:r2');
			expect(created).toBeDefined();
			const error = errors.Create;
			expect(error?.context?.rowsCreated).toEqual([{ row: 2, itemIndex: 1, id: created?.id }]);
			// Row 1 is named as maybe created, or is the row the error is about.
			const maybe = (error?.context?.rowsMaybeCreated ?? []) as IDataObject[];
			expect(maybe.some((r) => r.row === 1) || error?.message.startsWith('Row 1 ')).toBe(true);
		});
	});
});
