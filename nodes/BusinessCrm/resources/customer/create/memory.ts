import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { inputError, neverReachedApi, RequestWithdrawn } from '../../../errors/errors';
import { executionCustomers, type CreateOrigin } from '../../../state/executionCustomers';
import type { ImportRun } from './importRun';
import { sendCreate } from './request';
import { EARLIER_MAYBE_CREATED } from './skipExisting';

/**
 * Whether a failed Create proves that nothing was created: refused before sending (input, a
 * refused connection, n8n's own checks), or answered 4xx (429 past the retries included). A 5xx,
 * a timeout or a dropped connection after sending, a reply that cannot be read: the customer may
 * exist, so the error is treated as "maybe created".
 */
function provesNothingCreated(error: unknown): boolean {
	if (error instanceof NodeOperationError || error instanceof RequestWithdrawn) return true;
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	if (error.httpCode) return status >= 400 && status < 500;
	return neverReachedApi(error);
}

/**
 * Every Create, with or without Skip Existing, tells the execution what it did: a customer it
 * created joins what later Finds and Skip Existing of the execution see, and a Create that may
 * have happened stops a later Skip Existing Create of its keys. The node run hears of both, for
 * the error that stops it, and withdraws a Create not yet sent once it has stopped.
 */
export async function rememberedCreate(
	ctx: IExecuteSingleFunctions,
	body: IDataObject,
	run: ImportRun,
): Promise<IDataObject> {
	const execution = await executionCustomers(ctx);
	const business = String(body.businessId);
	const origin: CreateOrigin = {
		nodeName: ctx.getNode().name,
		run: ctx.getExecuteData(),
		itemIndex: ctx.getItemIndex(),
	};
	const attempt = sendCreate(ctx, body, run.gate(ctx));
	// Noted before the failure reaches this item's error, so the next row with the key sees it.
	attempt.catch((error: unknown) => {
		if (provesNothingCreated(error)) return;
		execution.addUncertain(body, { ...origin, businessId: business });
		execution.unshareReads();
		run.mayHaveCreated(origin.itemIndex);
	});
	const customer = await attempt;
	execution.addCreated(customer, body, business);
	run.created(origin.itemIndex, customer);
	return customer;
}

export const SENT_IN_AN_EARLIER_TRY =
	'Create customer not sent again: an earlier try of this node (Settings › Retry On Fail) sent this row, and it may have created this customer';

/**
 * A row whose Create an earlier try sent with an unknown outcome: Retry On Fail does not send it
 * again, as that could add the customer twice.
 */
export function notSentAgain(ctx: IExecuteSingleFunctions): NodeOperationError {
	return inputError(ctx, SENT_IN_AN_EARLIER_TRY, EARLIER_MAYBE_CREATED, ctx.getItemIndex(), {
		type: 'unknownOutcome',
	});
}
