import { NodeOperationError, type IDataObject, type IExecuteSingleFunctions } from 'n8n-workflow';
import { booleanParameter } from '../../../params/parameters';
import { recordKey, type MatchKey } from '../../../state/customerIndex';
import { keyTurns } from '../../../state/executionCustomers';
import type { ImportRow, ImportRun } from './importRun';
import {
	customerIds,
	existingCustomer,
	marked,
	MATCH_VALUE_WORDS,
	refuseWithoutMatchValue,
	SKIP_MARK,
	SWITCH_HELP,
	type SkipExisting,
	type SkipOutcome,
} from './skipExisting';

/** Preview Only (Write Nothing): shown, and read, with Skip if the Customer Already Exists on. */
export function previewOnly(ctx: IExecuteSingleFunctions): boolean {
	return booleanParameter(ctx, 'previewOnly', 'Preview Only', SWITCH_HELP);
}

/** What a preview says a row would come to: Skip Existing's outcomes, or an error. */
export type PreviewOutcome = SkipOutcome | 'refused';

/** `_skipExisting.result` of a preview: what the real run would do, in words. */
export function previewResult(
	outcome: PreviewOutcome,
	matchOn: MatchKey | undefined,
	detail: { matches?: number; earlierRow?: string; error?: string } = {},
): string {
	const value = MATCH_VALUE_WORDS[matchOn ?? 'email'];
	switch (outcome) {
		case 'created':
			return `Would be created: no customer with this ${value} is in the CRM`;
		case 'alreadyExists':
			if (detail.earlierRow) {
				return `Would not be created: ${detail.earlierRow} of this input has the same ${value} and would create the customer`;
			}
			return (detail.matches ?? 1) > 1
				? `Would not be created: ${detail.matches} customers with this ${value} are already in the CRM (the first is shown)`
				: `Would not be created: a customer with this ${value} is already in the CRM`;
		case 'notCreatedNoMatchValue':
			return `Would not be created: the row has no ${value} to look the customer up by`;
		case 'createdNoMatchValue':
			return `Would be created without a check: the row has no ${value} to look the customer up by`;
		case 'createdPartialMatch':
			return `Would be created: no customer with this ${value} is in the CRM, only customers whose ${value} matches it in part (partialMatches)`;
		case 'refused':
			return `Would stop with an error: ${detail.error ?? ''}`;
	}
}

/** A row the real run would refuse, as a preview item: the error as the error output shows it. */
export function previewRefusal(
	run: ImportRun,
	row: ImportRow,
	error: NodeOperationError,
	matchOn?: MatchKey,
	body?: IDataObject,
): IDataObject {
	const message = run.named(row, error.message);
	return {
		id: null,
		// The fields the row would send, when it got that far, so the row can be found and fixed.
		...body,
		[SKIP_MARK]: {
			skipped: false,
			created: false,
			outcome: 'refused',
			result: previewResult('refused', matchOn, { error: error.message }),
			...(matchOn ? { matchOn } : {}),
			preview: true,
			error: error.description ? `${message}. ${error.description}` : message,
		},
	};
}

/** `marked`, as a preview: nothing was created, and the words say what would happen. */
function previewMarked(
	ctx: IExecuteSingleFunctions,
	record: IDataObject,
	outcome: SkipOutcome,
	matchOn: MatchKey,
	detail: { matches?: number; earlierRow?: string; partialMatches?: string[] } = {},
): IDataObject {
	const item = marked(ctx, record, outcome, matchOn, detail.partialMatches);
	const mark = item[SKIP_MARK] as IDataObject;
	item[SKIP_MARK] = {
		...mark,
		created: false,
		result: previewResult(outcome, matchOn, detail),
		preview: true,
		...(detail.matches !== undefined && detail.matches > 1 ? { matches: detail.matches } : {}),
		...(detail.earlierRow ? { earlierRow: detail.earlierRow } : {}),
	};
	return item;
}

/**
 * What the real run would do with this row, found the way it finds it (one list read for the
 * run, the rows before this one in input order, the same refusals), with nothing sent. A row the
 * real run would create is remembered, so a later row with its key is "already there".
 */
export async function previewRow(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: ImportRow,
	body: IDataObject,
	settings: SkipExisting,
): Promise<IDataObject> {
	const { matchOn, noMatchValue } = settings;
	const key = recordKey(body, matchOn);
	const record = { id: null, ...body };
	const outcome = async (): Promise<IDataObject> => {
		if (key === '') {
			refuseWithoutMatchValue(ctx, body, settings);
			const noKey = noMatchValue === 'skip' ? 'notCreatedNoMatchValue' : 'createdNoMatchValue';
			return previewMarked(ctx, record, noKey, matchOn);
		}
		return await keyTurns(ctx).oneAtATime(matchOn, key, async () => {
			const { match, matches, partial } = await existingCustomer(
				ctx,
				body,
				settings,
				run.wouldCreate,
			);
			if (match) {
				const earlierRow = run.wouldCreateRow.get(match)?.label;
				return previewMarked(ctx, match, 'alreadyExists', matchOn, { matches, earlierRow });
			}
			run.wouldCreate.add(record);
			run.wouldCreateRow.set(record, row);
			if (partial.length === 0) return previewMarked(ctx, record, 'created', matchOn);
			const partialMatches = customerIds(partial);
			return previewMarked(ctx, record, 'createdPartialMatch', matchOn, { partialMatches });
		});
	};
	// A refusal is the row's outcome; a failed list read is the preview's own failure.
	return await outcome().catch(async (caught: unknown) =>
		caught instanceof NodeOperationError
			? previewRefusal(run, row, caught, matchOn, body)
			: await Promise.reject(caught),
	);
}
