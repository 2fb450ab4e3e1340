import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { extractRecord } from '../../../api/replyShapes';
import { apiReply } from '../../../api/transport';
import { transportError } from '../../../errors/errors';
import { retryPolicy } from '../../../params/options';
import type { RunGate } from './importRun';

export const CREATE_URL = '/api/business/crm/customer/add';

/** What a Create that failed after it may have reached the API says (and what Skip Existing looks for). */
export const MAYBE_CREATED =
	'The customer may or may not have been created: check the customer list before running this item again, or it may be added twice.';

/**
 * For a 2xx whose reply cannot be read (a JSON list or a bare value): the API took the Create, so
 * a re-run would most likely add the customer twice.
 */
export const PROBABLY_CREATED =
	'The API accepted the Create, so the customer was probably created; only its reply cannot be read. Before running this item again, look the customer up with Customer › Find (by email, phone, or first and last name): running it again would likely add it twice.';

/** Before PROBABLY_CREATED, for a 2xx whose reply is a JSON list. */
export const NOT_ONE_CUSTOMER = 'Expected the new customer as a JSON object.';

/**
 * What a Create answered without a body (e.g. 201 or 204) is known to hold: the fields sent, and
 * the new customer's address and id when the reply's Location header gives them.
 */
function createdWithoutBody(body: IDataObject, location: unknown): IDataObject {
	const record: IDataObject = { ...body };
	if (typeof location !== 'string' || location.trim() === '') return record;
	record.location = location.trim();
	const last = location.trim().split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? '';
	// Only an id of the documented form (cust_<token>): a path like /customers is no id.
	if (/^cust_[A-Za-z0-9_-]+$/.test(last)) record.id = last;
	return record;
}

/** The Create request for one row: the new customer as the reply gives it. */
export async function sendCreate(
	ctx: IExecuteSingleFunctions,
	body: IDataObject,
	run?: RunGate,
): Promise<IDataObject> {
	const reply = await apiReply(ctx, {
		what: 'Create customer',
		method: 'POST',
		url: CREATE_URL,
		body,
		policy: retryPolicy(ctx),
		itemIndex: ctx.getItemIndex(),
		uncertainOutcome: MAYBE_CREATED,
		acceptedOutcome: PROBABLY_CREATED,
		hints: {
			404: `The API did not find business "${String(body.businessId)}" (or the endpoint). Check the business ID, or pick the business from the list.`,
		},
		emptyBodyIsSuccess: true,
		...run,
	});
	if (typeof reply.body === 'string') return createdWithoutBody(body, reply.headers.location);
	if (Array.isArray(reply.body)) {
		throw transportError(
			ctx,
			`Create customer failed: the Business CRM API answered ${reply.statusCode} with a JSON list, not the customer`,
			`${NOT_ONE_CUSTOMER} ${PROBABLY_CREATED}`,
			[],
			ctx.getItemIndex(),
			'yes',
			'unknownOutcome',
		);
	}
	return extractRecord(reply.body, 'customer');
}
