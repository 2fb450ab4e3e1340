import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { UnexpectedReplyError } from '../api/replyShapes';

export const REPLY_OF_UNEXPECTED_SHAPE = 'The Business CRM API sent a reply of an unexpected shape';
/** After what was wrong with the reply's shape. */
export const REPLY_SHAPES_HELP = 'The node understands the reply shapes listed in its README.';

function asNodeError(
	ctx: IExecutePaginationFunctions,
	caught: unknown,
): NodeApiError | NodeOperationError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) return caught;
	if (caught instanceof UnexpectedReplyError) {
		return new NodeApiError(ctx.getNode(), { message: caught.message } as JsonObject, {
			message: REPLY_OF_UNEXPECTED_SHAPE,
			description: `${caught.message} ${REPLY_SHAPES_HELP}`,
		});
	}
	return new NodeOperationError(ctx.getNode(), caught as Error);
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
			if (!this.continueOnFail()) throw error;
			// One key, message then advice: n8n 2.8 sends a json item to the error output only when
			// its keys are `error` (and at most `message`), and later versions replace the json of
			// items that carry an error object with the message alone, so the advice would be lost.
			const json: IDataObject = {
				error: error.description ? `${error.message}. ${error.description}` : error.message,
			};
			return [{ json, pairedItem: { item: itemIndex } }];
		}
	};
}
