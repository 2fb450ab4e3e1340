import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { checkBusiness } from '../BusinessCrm/api/businessCheck';
import { inputError } from '../BusinessCrm/errors/errors';
import { DEFAULT_RETRY_POLICY } from '../BusinessCrm/api/retries';
import { EMPTY_BUSINESS, textParameter } from '../BusinessCrm/params/parameters';
import { trimmedText } from '../BusinessCrm/values';

export const EMPTY_OPTION_HELP =
	'Pick a business under Options › Business, enter its ID, or remove the option to be told about the customers of every business.';

/**
 * Options › Business: the business whose customers to emit, or undefined for all. The API is
 * asked once per activation (and per Fetch Test Event) whether the business exists: a mistyped
 * ID would match no customer, and the trigger would never fire without saying why.
 */
export async function businessOption(ctx: IPollFunctions): Promise<string | undefined> {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	if (!('businessId' in options)) return undefined;
	const id = textParameter(ctx, 'options.businessId', 'Options › Business', { extractValue: true });
	if (id === '') {
		// Read as "every business", an empty choice would emit what the user meant to exclude.
		throw inputError(ctx, EMPTY_BUSINESS, EMPTY_OPTION_HELP);
	}
	await checkBusiness(ctx, id, 'Options › Business', DEFAULT_RETRY_POLICY);
	return id;
}

export const NO_BUSINESS_ID =
	'The customers carry no businessId, so Options › Business cannot tell whose they are';
/** After "Customer <id>". */
export const NO_BUSINESS_ID_HELP =
	'has no businessId (the field is missing, empty or blank). Fill it in: the next poll that reads the customer emits it if it belongs to this business. Or remove Options › Business to be told about every new customer (filter later in the workflow if another field says the business). Nothing was emitted or remembered, so no customer is lost.';

/**
 * The business a customer record names, cleaned as every value of the package is (spaces and
 * invisible characters at its ends cut); '' when it names none: missing, null, not text or a
 * number, or empty once cleaned. A blank businessId places the customer no better than a missing
 * one, and read as a business that is not this one it would be remembered and never emitted.
 */
export function ownerOf(customer: IDataObject): string {
	const owner = customer.businessId;
	return typeof owner === 'string' || typeof owner === 'number' ? trimmedText(owner) : '';
}

/**
 * The customers of one business. A customer without a business cannot be placed: emitting it
 * could start the workflow for another business's customer (a welcome mail to the wrong
 * people), dropping it would lose it, so the poll stops with an error and remembers nothing.
 */
export function onlyOfBusiness(
	ctx: IPollFunctions,
	customers: IDataObject[],
	businessId: string,
): IDataObject[] {
	const matching: IDataObject[] = [];
	for (const customer of customers) {
		const owner = ownerOf(customer);
		if (owner === '') {
			throw inputError(
				ctx,
				NO_BUSINESS_ID,
				`Customer ${String(customer.id)} ${NO_BUSINESS_ID_HELP}`,
			);
		}
		if (owner === businessId) matching.push(customer);
	}
	return matching;
}
