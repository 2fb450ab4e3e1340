import { NodeOperationError, type IDataObject, type IExecuteSingleFunctions } from 'n8n-workflow';
import { booleanParameter } from '../../../params/parameters';
import { recordKey, type MatchKey } from '../../../state/customerIndex';
import { executionCustomers, keyTurns } from '../../../state/executionCustomers';
import type { ImportRow, ImportRun } from './importRun';
import {
	existingCustomer,
	ofWhichRun,
	refuseWithoutMatchValue,
	SWITCH_HELP,
	type SkipExisting,
} from './skipExisting';
import { customerIds, marked, MATCH_VALUE_WORDS, SKIP_MARK, type SkipOutcome } from './mark';

/**
 * Preview Only (Write Nothing), shown and read whatever Skip if the Customer Already Exists says:
 * n8n drops a parameter its display options hide, so a Preview Only shown only with that switch
 * on was lost when a workflow (or an AI builder's JSON) set the switch off, and the rows written.
 */
export function previewOnly(ctx: IExecuteSingleFunctions): boolean {
	return booleanParameter(ctx, 'previewOnly', 'Preview Only', SWITCH_HELP);
}

/** A preview's words for a row whose Skip Existing is off: the real run sends it unchecked. */
export const NOT_LOOKED_UP =
	'Would be created: Skip if the Customer Already Exists is off for this row, so the CRM is not checked first';

/** What a preview says a row would come to: Skip Existing's outcomes, or an error. */
export type PreviewOutcome = SkipOutcome | 'refused';

/** `_skipExisting.result` of a preview: what the real run would do, in words. */
export function previewResult(
	outcome: PreviewOutcome,
	matchOn: MatchKey | undefined,
	detail: { matches?: number; earlierRow?: string; earlierIn?: string; error?: string } = {},
): string {
	const value = MATCH_VALUE_WORDS[matchOn ?? 'email'];
	switch (outcome) {
		case 'created':
			return matchOn === undefined
				? NOT_LOOKED_UP
				: `Would be created: no customer with this ${value} is in the CRM`;
		case 'alreadyExists':
			if (detail.earlierRow) {
				return `Would not be created: ${detail.earlierRow}${detail.earlierIn ?? ' of this input'} has the same ${value} and would create the customer`;
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
	matchOn: MatchKey | undefined,
	detail: {
		matches?: number;
		earlierRow?: string;
		earlierIn?: string;
		partialMatches?: string[];
	} = {},
): IDataObject {
	const item = marked(ctx, record, outcome, matchOn ?? 'email', detail.partialMatches);
	const { matchOn: matchedOn, ...mark } = item[SKIP_MARK] as IDataObject;
	item[SKIP_MARK] = {
		...mark,
		// Without Skip Existing nothing is matched on.
		...(matchOn ? { matchOn: matchedOn } : {}),
		created: false,
		result: previewResult(outcome, matchOn, detail),
		preview: true,
		...(detail.matches !== undefined && detail.matches > 1 ? { matches: detail.matches } : {}),
		...(detail.earlierRow ? { earlierRow: detail.earlierRow } : {}),
	};
	return item;
}

/** Remembers, for the execution's later rows and previews, that this row would be created. */
async function wouldCreate(
	ctx: IExecuteSingleFunctions,
	row: ImportRow,
	record: IDataObject,
): Promise<void> {
	const execution = await executionCustomers(ctx);
	execution.wouldCreate.add(record);
	execution.wouldCreateFrom.set(record, {
		nodeName: ctx.getNode().name,
		run: ctx.getExecuteData(),
		itemIndex: row.index,
		label: row.label,
	});
}

/**
 * A refusal as the preview shows it: with On Error set to continue, the row goes where the real
 * run sends it (the error output, or an error item), in the same words; otherwise it is an item
 * saying the run would stop with it, as a preview must not stop.
 */
async function refused(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: ImportRow,
	error: NodeOperationError,
	matchOn?: MatchKey,
	body?: IDataObject,
): Promise<IDataObject> {
	if (ctx.continueOnFail()) return await Promise.reject(error);
	return previewRefusal(run, row, error, matchOn, body);
}

/**
 * What the real run would do with this row, found the way it finds it (one list read for the
 * execution, the rows before this one in input order and the previews of earlier node runs,
 * the same refusals), with nothing sent. A row the real run would create is remembered, so a
 * later row with its key is "already there". Without Skip Existing nothing is looked up: the
 * row would be created as it is.
 */
export async function previewRow(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: ImportRow,
	body: IDataObject,
	settings: SkipExisting | undefined,
): Promise<IDataObject> {
	const record = { id: null, ...body };
	if (settings === undefined) {
		await wouldCreate(ctx, row, record);
		return previewMarked(ctx, record, 'created', undefined);
	}
	const { matchOn, noMatchValue } = settings;
	const key = recordKey(body, matchOn);
	const outcome = async (): Promise<IDataObject> => {
		if (key === '') {
			refuseWithoutMatchValue(ctx, body, settings);
			const noKey = noMatchValue === 'skip' ? 'notCreatedNoMatchValue' : 'createdNoMatchValue';
			if (noKey === 'createdNoMatchValue') await wouldCreate(ctx, row, record);
			return previewMarked(ctx, record, noKey, matchOn);
		}
		return await keyTurns(ctx).oneAtATime(matchOn, key, async () => {
			const execution = await executionCustomers(ctx);
			const { match, matches, partial } = await existingCustomer(
				ctx,
				body,
				settings,
				execution.wouldCreate,
			);
			if (match) {
				const from = execution.wouldCreateFrom.get(match);
				const where = from
					? { earlierRow: from.label, earlierIn: ` ${ofWhichRun(ctx, from, 'this input')}` }
					: {};
				return previewMarked(ctx, match, 'alreadyExists', matchOn, { matches, ...where });
			}
			await wouldCreate(ctx, row, record);
			if (partial.length === 0) return previewMarked(ctx, record, 'created', matchOn);
			const partialMatches = customerIds(partial);
			return previewMarked(ctx, record, 'createdPartialMatch', matchOn, { partialMatches });
		});
	};
	// A refusal is the row's outcome; a failed list read is the preview's own failure.
	return await outcome().catch(async (caught: unknown) =>
		caught instanceof NodeOperationError
			? await refused(ctx, run, row, caught, matchOn, body)
			: await Promise.reject(caught),
	);
}

/** A row the node refused before sending, in a preview (see `refused`). */
export async function previewRefusedRow(
	ctx: IExecuteSingleFunctions,
	run: ImportRun,
	row: ImportRow & { refusal: NodeOperationError },
	matchOn?: MatchKey,
	body?: IDataObject,
): Promise<IDataObject> {
	return await refused(ctx, run, row, row.refusal, matchOn, body);
}
