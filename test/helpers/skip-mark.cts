/** The mark Skip Existing adds, as the tests of Customer › Create expect it. */
import {
	skipResult,
	type SkipOutcome,
} from '../../nodes/BusinessCrm/resources/customer/create/mark';
import type { MatchKey } from '../../nodes/BusinessCrm/state/customerIndex';

/** The `_skipExisting` mark that Skip if the Customer Already Exists puts beside a record. */
export function skipMark(
	outcome: SkipOutcome,
	matchOn: MatchKey = 'email',
	partialMatches?: string[],
) {
	return {
		skipped: outcome === 'alreadyExists',
		created: ['created', 'createdNoMatchValue', 'createdPartialMatch'].includes(outcome),
		outcome,
		result: skipResult(outcome, matchOn),
		matchOn,
		...(partialMatches ? { partialMatches } : {}),
	};
}
