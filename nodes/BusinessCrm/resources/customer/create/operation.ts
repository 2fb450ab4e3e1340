import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';
import { MAX_TIMEOUT_MS } from '../../../api/requestSettings';
import { RequestWithdrawn } from '../../../errors/errors';
import { runEachItem, runOperation, type OperationHandler } from '../../operation';
import { customerBody } from './body';
import { hintDuplicates } from './duplicateHint';
import { importRun, NOTHING_SENT, rowLabel, type ImportRow, type ImportRun } from './importRun';
import { keyTurns } from '../../../state/executionCustomers';
import { notSentAgain, rememberedCreate } from './memory';
import { previewOnly, previewRefusedRow, previewRow } from './preview';
import { CREATE_URL } from './request';
import {
	createUnlessExists,
	refuseWithoutMatchValue,
	skipExistingSettings,
	type SkipExisting,
} from './skipExisting';
import { marked } from './mark';

interface CheckedRow extends ImportRow {
	body?: IDataObject;
	skipExisting?: SkipExisting;
	preview: boolean;
}

/** The row's names as given, for its label, even when they are refused. */
function givenNames(ctx: IExecuteSingleFunctions): [unknown, unknown] {
	try {
		return [ctx.getNodeParameter('firstName', ''), ctx.getNodeParameter('lastName', '')];
	} catch {
		return ['', ''];
	}
}

/** Everything the node can refuse before sending, checked as the row arrives. */
function checkRow(ctx: IExecuteSingleFunctions): CheckedRow {
	const index = ctx.getItemIndex();
	const row: CheckedRow = { index, label: '', stops: false, preview: false, arrivedAt: Date.now() };
	try {
		// First: whatever else a row sets, a preview writes nothing.
		row.preview = previewOnly(ctx);
		row.skipExisting = skipExistingSettings(ctx);
		row.body = customerBody(ctx);
		if (row.skipExisting) refuseWithoutMatchValue(ctx, row.body, row.skipExisting);
	} catch (caught) {
		row.refusal =
			caught instanceof NodeOperationError
				? caught
				: new NodeOperationError(ctx.getNode(), caught as Error, { itemIndex: index });
		row.stops = !row.preview && !ctx.continueOnFail();
	}
	// The names from the body when it was built: reading them again would evaluate each row's
	// expressions a second time, the dearest work of a row on n8n 2.41's isolated engine.
	row.label = row.body
		? rowLabel(index, row.body.firstName, row.body.lastName)
		: rowLabel(index, ...givenNames(ctx));
	return row;
}

/** Settings › Batching's interval, as n8n's RoutingNode reads it. */
function batchInterval(ctx: IExecuteSingleFunctions): number {
	const { batching } = ctx.getNodeParameter('requestOptions', {}) as {
		batching?: { batch?: { batchInterval?: unknown } };
	};
	const interval = Number(batching?.batch?.batchInterval);
	// Node runs a longer timer at once; n8n's own sleep between batches would too.
	return Number.isFinite(interval) && interval > 0 ? Math.min(interval, MAX_TIMEOUT_MS) : 0;
}

/** The row's output: the customer created or found, a preview, or nothing when the run stopped. */
async function createRow(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: CheckedRow,
): Promise<IDataObject | undefined> {
	const { refusal, body, skipExisting } = row;
	if (refusal) {
		if (row.preview)
			return await previewRefusedRow(ctx, run, { ...row, refusal }, skipExisting?.matchOn, body);
		throw refusal;
	}
	if (body === undefined) return undefined;
	if (row.preview) return await previewRow(ctx, run, row, body, skipExisting);
	// Another row was refused: the node fails with that row's error and sends nothing.
	if (run.refusedRow) return undefined;
	// Settings › Retry On Fail: a row an earlier try created is not sent again.
	const before = run.createdBefore(row.index);
	if (before) return skipExisting ? marked(ctx, before, 'created', skipExisting.matchOn) : before;
	if (run.mayHaveCreatedBefore(row.index)) throw notSentAgain(ctx);
	await run.ownTurn(row);
	const create = async () => await rememberedCreate(ctx, body, run);
	const outcome =
		skipExisting === undefined
			? keyTurns(ctx).inTurnOfAll(body, create)
			: createUnlessExists(ctx, body, skipExisting, create, run.gate(ctx));
	// Not sent because another row's failure stopped the run: that row's error is the node's.
	return await outcome.catch(async (caught: unknown) =>
		caught instanceof RequestWithdrawn ? undefined : await Promise.reject(caught),
	);
}

/**
 * The error for this row alone: rows that awaited one list read share its error, so the row's
 * words go on a copy (same class, own context).
 */
function ownCopy<T extends NodeOperationError | NodeApiError>(error: T, message: string): T {
	const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as T, error);
	copy.context = { ...error.context };
	copy.message = message;
	copy.stack = error.stack;
	return copy;
}

function joined(first: string | null | undefined, second: string): string {
	return first ? `${first} ${second}` : second;
}

/**
 * The row's error, naming the row. Without Continue On Fail it stops the run: nothing more is
 * sent, and once every row has its outcome the error says which rows were created.
 */
async function rowFailed(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: CheckedRow,
	caught: unknown,
): Promise<unknown> {
	if (!(caught instanceof NodeOperationError || caught instanceof NodeApiError)) return caught;
	if (run.size < 2) return caught;
	const error = ownCopy(caught, run.named(row, caught.message));
	if (ctx.continueOnFail()) return error;
	if (caught === row.refusal) {
		error.description = joined(error.description, NOTHING_SENT);
		return error;
	}
	run.stopped = true;
	run.finished(row.index);
	const { words, data } = await run.written();
	error.description = joined(error.description, words);
	Object.assign(error.context, data);
	return error;
}

/** One row of an import: checked, then created once every row of the run is checked. */
const createOne: OperationHandler = async function () {
	const run = importRun(this);
	const row = checkRow(this);
	run.arrive(row);
	// Every row is checked before the first Create leaves.
	await run.allArrived(batchInterval(this));
	try {
		const record = await createRow(this, run, row);
		return record === undefined ? [] : [record];
	} catch (caught) {
		throw await rowFailed(this, run, row, caught);
	} finally {
		run.finished(row.index);
	}
};

const createEach = runEachItem(createOne);

/**
 * Create in a workflow run: n8n calls it instead of its routing (see runEachItem). A run from
 * the editor also warns of customers it may have added twice (hintDuplicates).
 */
export async function customerCreate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const output = await createEach.call(this);
	await hintDuplicates(this, output[0]);
	return output;
}

export const customerCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a customer',
	description:
		"Add a customer to a business's CRM, given the business ID and the customer's first and last name; outputs the new customer with its ID (cust_…)",
	builderHint: {
		propertyHint:
			'The business ID (biz_…) comes from Business › Get Many. For imports (rows from a sheet, a CSV, a form) turn on Skip Existing with Match On Email, so that a re-run adds no one twice; Preview Only shows what would be created. Do not rely on the API to refuse duplicates.',
	},
	routing: {
		request: { method: 'POST', url: CREATE_URL },
		send: { paginate: true },
		operations: {
			pagination: runOperation(createOne),
		},
	},
};
