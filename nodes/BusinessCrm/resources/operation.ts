import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { UnexpectedReplyError } from '../api/replyShapes';
import { CREDENTIAL_TYPE } from '../credential/credential';
import { nextStepForModel, runsAsTool } from '../errors/agentAdvice';
import { errorTypeOf, typed, type ErrorType } from '../errors/errorTypes';
import { fromAiKey } from '../params/parameters';

export const REPLY_OF_UNEXPECTED_SHAPE = 'The Business CRM API sent a reply of an unexpected shape';
/** After what was wrong with the reply's shape. */
export const REPLY_SHAPES_HELP = 'The node understands the reply shapes listed in its README.';

function asNodeError(
	ctx: IExecutePaginationFunctions,
	caught: unknown,
): NodeApiError | NodeOperationError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) return caught;
	if (caught instanceof UnexpectedReplyError) {
		const error = new NodeApiError(ctx.getNode(), { message: caught.message } as JsonObject, {
			message: REPLY_OF_UNEXPECTED_SHAPE,
			description: `${caught.message} ${REPLY_SHAPES_HELP}`,
		});
		return typed(error, 'unexpectedReply');
	}
	return new NodeOperationError(ctx.getNode(), caught as Error);
}

/** Two texts as sentences: messages have no full stop of their own, the model's step has. */
function sentences(first: string, second: string): string {
	return `${first}${first.endsWith('.') ? '' : '.'} ${second}`;
}

/**
 * Ends the message with what the model should do next: a model gets a tool's error message
 * alone. Once per error: a failed list read is one error for every item that waited for it.
 */
function tellModel(
	ctx: IExecutePaginationFunctions,
	error: NodeApiError | NodeOperationError,
	type: ErrorType,
): void {
	if (error.context.toldModel === true) return;
	// The API's 404s are all about a business: Create's, Get's, or Get Many's filter's.
	const parameter = error.context.parameter ?? (type === 'notFound' ? 'businessId' : undefined);
	const step = nextStepForModel({
		type,
		argument: typeof parameter === 'string' ? fromAiKey(ctx, parameter) : undefined,
		retryAfterSeconds:
			typeof error.context.retryAfterSeconds === 'number'
				? error.context.retryAfterSeconds
				: undefined,
	});
	error.message = sentences(error.message, step);
	error.context.toldModel = true;
}

/**
 * What an operation does for one input item. It is not given the request n8n's routing built:
 * every request goes through the transport, which takes the item's settings itself.
 */
export type OperationHandler = (this: IExecutePaginationFunctions) => Promise<IDataObject[]>;

/**
 * Wraps an operation as the `routing.operations.pagination` function of a declarative
 * operation: the one hook where declarative routing lets a node send its requests itself
 * (to retry, paginate and word errors). Every output item is paired with its input item,
 * and with Continue On Fail an error becomes an item `{error}` paired the same way (n8n's
 * routing would emit it unpaired, and with an empty json).
 */
export function runOperation(handler: OperationHandler) {
	return async function (this: IExecutePaginationFunctions): Promise<INodeExecutionData[]> {
		const itemIndex = this.getItemIndex();
		try {
			const records = await handler.call(this);
			return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
		} catch (caught) {
			const error = asNodeError(this, caught);
			// Here for every error, those thrown ready-made by the handler included.
			error.context.itemIndex = itemIndex;
			const errorType = errorTypeOf(error);
			typed(error, errorType);
			if (runsAsTool(this.getNode())) tellModel(this, error, errorType);
			if (!this.continueOnFail()) throw error;
			// Message then advice in one key: n8n replaces the json of items that carry an error
			// object with the message alone, so the advice would be lost.
			const json: IDataObject = {
				error: error.description ? sentences(error.message, error.description) : error.message,
			};
			// n8n (1.x to 2.41) sends an item to the error output only when its other keys are
			// `message` (or `details`, 2.9 and later), so there the kind is in the error's context.
			if (this.getNode().onError !== 'continueErrorOutput') json.errorType = errorType;
			return [{ json, pairedItem: { item: itemIndex } }];
		}
	};
}

/**
 * The item's view of a node run, as n8n's RoutingNode gives each item (it also builds its
 * pagination context with Object.create): the run's context, read at this item.
 */
export function itemContext(
	ctx: IExecuteFunctions,
	itemIndex: number,
): IExecutePaginationFunctions {
	const item: Partial<IExecutePaginationFunctions> = {
		getItemIndex: () => itemIndex,
		getNodeParameter: (name: string, fallback?: unknown, options?: object) =>
			ctx.getNodeParameter(name, itemIndex, fallback, options),
		getInputData: (inputIndex = 0, type = 'main') => ctx.getInputData(inputIndex, type)[itemIndex],
		getCredentials: async <T extends object>(type: string) =>
			await ctx.getCredentials<T>(type, itemIndex),
	};
	return Object.assign(Object.create(ctx) as IExecutePaginationFunctions, item);
}

/**
 * The error as RoutingNode throws a failed item's: a NodeApiError, so that n8n's error view shows
 * an error of Create as it shows the routed operations' (its "From Business CRM" section).
 */
function asRoutedError(ctx: IExecuteFunctions, caught: unknown, itemIndex: number): NodeApiError {
	if (caught instanceof NodeApiError) return caught;
	// runOperation rejects with node errors only: a NodeOperationError here.
	const error = caught as NodeOperationError;
	return new NodeApiError(ctx.getNode(), error as unknown as JsonObject, {
		itemIndex,
		message: error.message,
		description: error.description ?? undefined,
		httpCode: 'none',
	});
}

/**
 * Runs an operation as one of the node's `customOperations`, with what RoutingNode does around
 * it: each item's handler started in input order (Settings › Batching's sleeps between batches
 * included), the output in input order, and the first failed item's error thrown. n8n calls it
 * instead of RoutingNode in a workflow run, which would otherwise evaluate every parameter of
 * every item before the first handler starts: most of a large import's wait on n8n 2.41's
 * isolated expression engine. Tool calls still take the routing (n8n runs a tool through
 * RoutingNode), so an operation keeps both, with one handler.
 */
export function runEachItem(handler: OperationHandler) {
	const perItem = runOperation(handler);
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { batching } = this.getNodeParameter('requestOptions', 0, {}) as {
			batching?: { batch?: { batchSize?: number; batchInterval?: number } };
		};
		const size = Number(batching?.batch?.batchSize) > 0 ? Number(batching?.batch?.batchSize) : 1;
		const interval = Number(batching?.batch?.batchInterval);
		// Read once before the rows, as RoutingNode does: n8n caches what a read looks up (whether
		// the credential may use external secrets, in n8n 2.8), and without this every row's read
		// misses that cache at once, each with its own database query. A failure is each row's to
		// report, on its own item.
		await this.getCredentials(CREDENTIAL_TYPE, 0).catch(() => undefined);
		const outcomes: Array<Promise<INodeExecutionData[]>> = [];
		const items = this.getInputData();
		for (let index = 0; index < items.length; index++) {
			if (index > 0 && interval > 0 && index % size === 0) await sleep(interval);
			outcomes.push(perItem.call(itemContext(this, index)));
		}
		const output: INodeExecutionData[] = [];
		for (const [index, outcome] of (await Promise.allSettled(outcomes)).entries()) {
			if (outcome.status === 'rejected') throw asRoutedError(this, outcome.reason, index);
			output.push(...outcome.value);
		}
		return [output];
	};
}
