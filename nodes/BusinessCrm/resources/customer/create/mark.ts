import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { inputError } from '../../../errors/errors';
import type { MatchKey } from '../../../state/customerIndex';

// The `_skipExisting` mark on a row's output: what Skip Existing (or a preview) did with the row.

/** Where Skip Existing marks each row's outcome; the node refuses a custom field of that name. */
export const SKIP_MARK = '_skipExisting';

/** What Skip Existing did with a row, as `_skipExisting.outcome` says it. */
export type SkipOutcome =
	| 'created'
	| 'alreadyExists'
	| 'notCreatedNoMatchValue'
	| 'createdNoMatchValue'
	| 'createdPartialMatch';

/** The match value as a sentence names it. */
export const MATCH_VALUE_WORDS: Record<MatchKey, string> = {
	email: 'email',
	phone: 'phone number',
	name: 'first and last name',
};

/** `_skipExisting.result`: the outcome in words for people who branch on it or read it. */
export function skipResult(outcome: SkipOutcome, matchOn: MatchKey): string {
	const value = MATCH_VALUE_WORDS[matchOn];
	switch (outcome) {
		case 'created':
			return `Created: no customer with this ${value} was in the CRM`;
		case 'alreadyExists':
			return `Not created: a customer with this ${value} is already in the CRM`;
		case 'notCreatedNoMatchValue':
			return `Not created: the row has no ${value} to look the customer up by`;
		case 'createdNoMatchValue':
			return `Created without a check: the row has no ${value} to look the customer up by`;
		case 'createdPartialMatch':
			return `Created: no customer with this ${value} was in the CRM, only customers whose ${value} matches it in part (partialMatches)`;
	}
}

export const OWN_MARK_FIELD = `The node marks each row's outcome in ${SKIP_MARK}, which would overwrite the customer's own value.`;
export const WAS_CREATED = 'The customer was created.';
export const OWN_MARK_FIELD_FIX =
	'Rename the field in the CRM, or turn off Skip if the Customer Already Exists.';

/** The record flat, as without Skip Existing, with the row's outcome beside it. */
export function marked(
	ctx: IExecuteSingleFunctions,
	record: IDataObject,
	outcome: SkipOutcome,
	matchOn: MatchKey,
	partialMatches: string[] = [],
): IDataObject {
	const created = outcome.startsWith('created');
	if (Object.prototype.hasOwnProperty.call(record, SKIP_MARK)) {
		const who =
			record.id === undefined || record.id === null
				? 'The customer'
				: `Customer ${String(record.id)}`;
		throw inputError(
			ctx,
			`${who} has its own field "${SKIP_MARK}"`,
			`${OWN_MARK_FIELD}${created ? ` ${WAS_CREATED}` : ''} ${OWN_MARK_FIELD_FIX}`,
			ctx.getItemIndex(),
		);
	}
	// skipped means one thing, "already there", so a branch on it never drops a row never created.
	const skipped = outcome === 'alreadyExists';
	const result = skipResult(outcome, matchOn);
	const partial = outcome === 'createdPartialMatch' ? { partialMatches } : {};
	return { ...record, [SKIP_MARK]: { skipped, created, outcome, result, matchOn, ...partial } };
}

/** The IDs of these customers, each once; a preview's row that would be created has none yet. */
export function customerIds(customers: IDataObject[]): string[] {
	const ids = customers.filter((c) => c.id !== undefined && c.id !== null).map((c) => String(c.id));
	return [...new Set(ids)];
}
