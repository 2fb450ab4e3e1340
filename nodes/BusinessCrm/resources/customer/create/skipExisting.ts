import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { inputError, RequestWithdrawn } from '../../../errors/errors';
import { booleanParameter, choiceParameter } from '../../../params/parameters';
import {
	MATCH_KEY_NAMES,
	recordKey,
	type CustomerIndex,
	type MatchKey,
} from '../../../state/customerIndex';
import { keyTurns, listRead, type CreateOrigin } from '../../../state/executionCustomers';
import type { RunGate } from './importRun';
import { customerIds, marked } from './mark';

export interface SkipExisting {
	matchOn: MatchKey;
	/** Whether only customers of the row's business count as a match. */
	inBusiness: boolean;
	/** What to do with a row whose match value is empty. */
	noMatchValue: 'skip' | 'create' | 'error';
}

export const SWITCH_HELP = 'Turn the switch on or off, or make its expression give true or false.';

/** Skip if the Customer Already Exists and its settings; undefined to create as usual. */
export function skipExistingSettings(ctx: IExecuteSingleFunctions): SkipExisting | undefined {
	const on = booleanParameter(
		ctx,
		'skipExisting',
		'Skip if the Customer Already Exists',
		SWITCH_HELP,
	);
	if (!on) return undefined;
	const matchOn = choiceParameter<MatchKey>(ctx, 'matchOn', 'Match On', 'email', [
		'email',
		'phone',
		'name',
	]);
	const scope = choiceParameter(ctx, 'matchWithin', 'Match Within', 'business', [
		'business',
		'all',
	]);
	const noMatchValue =
		matchOn === 'name'
			? 'error'
			: choiceParameter(ctx, 'noMatchValue', 'Rows Without a Match Value', 'error', [
					'skip',
					'create',
					'error',
				]);
	return { matchOn, inBusiness: scope === 'business', noMatchValue };
}

/** Which node run an earlier row was of, as seen from this item; `thisRun` names its own. */
export function ofWhichRun(
	ctx: IExecuteSingleFunctions,
	earlier: CreateOrigin,
	thisRun: string,
): string {
	if (earlier.run === ctx.getExecuteData()) return `of ${thisRun}`;
	if (earlier.nodeName === ctx.getNode().name) return 'of an earlier run of this node';
	return `of the node "${earlier.nodeName}" earlier in this execution`;
}

/** Where an earlier Create was sent from, as seen from this item. */
function whereFrom(ctx: IExecuteSingleFunctions, earlier: CreateOrigin): string {
	// Counted from 1, as people count the rows of a sheet (n8n's item index is from 0).
	return `row ${earlier.itemIndex + 1} ${ofWhichRun(ctx, earlier, 'this run')}`;
}

export const NO_MATCH_VALUE_TO_ERROR_OUTPUT =
	'To go on with the other rows, set Settings › On Error to Continue (using error output): such rows then go to the error output.';
export const NO_MATCH_VALUE_CHOICES =
	'To output such rows without creating them, or to create them anyway (a re-run then creates them again), choose under Rows Without a Match Value.';

/** The advice for a row without a match value, leaving out a setting the node already has. */
export function noMatchValueHelp(ctx: IExecuteSingleFunctions): string {
	// Advice to turn on what is already on reads as if it were off, beside a row on the error output.
	if (ctx.getNode().onError === 'continueErrorOutput') return NO_MATCH_VALUE_CHOICES;
	return `${NO_MATCH_VALUE_TO_ERROR_OUTPUT} ${NO_MATCH_VALUE_CHOICES}`;
}
export const UNPLACED_FIX =
	'Check the customer in the CRM, or set Match Within to All Businesses to count a customer of any business as a match.';
export const EARLIER_MAYBE_CREATED =
	"That row's Create failed after it was sent (a timeout, a dropped connection or a server error), so the customer may or may not have been created. Sending this row too could add it twice. Check the customer list (Customer › Find) before running these rows again.";

/**
 * A row that Skip Existing cannot look up (no email or phone) with Rows Without a Match Value on
 * Stop With an Error: refused before anything is sent.
 */
export function refuseWithoutMatchValue(
	ctx: IExecuteSingleFunctions,
	body: IDataObject,
	{ matchOn, noMatchValue }: SkipExisting,
): void {
	if (noMatchValue !== 'error' || recordKey(body, matchOn) !== '') return;
	throw inputError(
		ctx,
		`${MATCH_KEY_NAMES[matchOn]} is empty, so the node cannot tell whether this customer already exists`,
		`Give this row ${matchOn === 'email' ? 'an email' : 'a phone number'}. ${noMatchValueHelp(ctx)}`,
		ctx.getItemIndex(),
		{ parameter: `additionalFields.${matchOn}` },
	);
}

/**
 * The customer already in the CRM for this row (a full match), how many match, and those that
 * match only in part (phones): from the list read, the Creates of this execution, and
 * `alsoCreated` (what a preview's earlier rows would create).
 * Refuses a row whose only match has no business, or whose key met a Create of unknown outcome:
 * a fresh list read could not prove the customer absent (the API may still be adding it), and
 * sending could add it twice.
 */
export async function existingCustomer(
	ctx: IExecuteSingleFunctions,
	body: IDataObject,
	{ matchOn, inBusiness }: SkipExisting,
	alsoCreated?: CustomerIndex,
): Promise<{ match?: IDataObject; matches: number; partial: IDataObject[] }> {
	const key = recordKey(body, matchOn);
	const what = MATCH_KEY_NAMES[matchOn];
	const business = String(body.businessId);
	const { index: list, customers: execution } = await listRead(ctx);
	const sources = alsoCreated ? [list, execution.created, alsoCreated] : [list, execution.created];
	const ofScope = (c: IDataObject) => !inBusiness || execution.businessOf(c) === business;
	const candidates = sources.flatMap((source) => source.find(matchOn, key, 'full'));
	const inScope = candidates.filter(ofScope);
	// Phones matching only in part: another customer as far as the node can tell (the docs' rule).
	const partial = sources
		.flatMap((source) => source.find(matchOn, key))
		.filter((c) => ofScope(c) && !candidates.includes(c));
	if (inScope.length > 0) return { match: inScope[0], matches: inScope.length, partial: [] };
	const unplaced = inBusiness && candidates.find((c) => execution.businessOf(c) === '');
	if (unplaced) {
		throw inputError(
			ctx,
			`Customer ${String(unplaced.id)} has this ${what.toLowerCase()} but the list does not say which business it is in`,
			`The node neither skips this row (the customer may belong to another business) nor creates it (it may be a customer of ${business} already). ${UNPLACED_FIX}`,
			ctx.getItemIndex(),
		);
	}
	const earlier = execution.uncertainCreate(matchOn, key, inBusiness ? business : undefined);
	if (earlier) {
		throw inputError(
			ctx,
			`Create customer not sent: ${whereFrom(ctx, earlier)}, with the same ${what.toLowerCase()}, may have created this customer`,
			EARLIER_MAYBE_CREATED,
			ctx.getItemIndex(),
			{ type: 'unknownOutcome' },
		);
	}
	return { matches: 0, partial };
}

/**
 * Skip if the Customer Already Exists, around the Create: the customer already in the CRM, or
 * the one `create` adds, marked with the row's outcome. `run` withdraws a row whose turn comes
 * once its run stopped (RequestWithdrawn), and hears of a failed look-up.
 */
export async function createUnlessExists(
	ctx: IExecuteSingleFunctions,
	body: IDataObject,
	settings: SkipExisting,
	create: () => Promise<IDataObject>,
	run?: RunGate,
): Promise<IDataObject> {
	const { matchOn, noMatchValue } = settings;
	const key = recordKey(body, matchOn);
	if (key === '') {
		refuseWithoutMatchValue(ctx, body, settings);
		if (noMatchValue === 'skip') {
			return marked(ctx, { id: null, ...body }, 'notCreatedNoMatchValue', matchOn);
		}
		return marked(ctx, await create(), 'createdNoMatchValue', matchOn);
	}
	// One key at a time: a second row with this key waits for the first row's Create.
	return await keyTurns(ctx).oneAtATime(matchOn, key, async () => {
		// A failed read is read again by whoever asks next: without this, each later row with the
		// key would read the list again (retries and their waits included), one after another,
		// after the run stopped. Told before the next row's turn, which comes once this one fails.
		if (run?.withdrawIf()) throw new RequestWithdrawn();
		const { match, partial } = await existingCustomer(ctx, body, settings).catch(
			async (caught: unknown) => {
				run?.failed();
				return await Promise.reject(caught);
			},
		);
		if (match) return marked(ctx, match, 'alreadyExists', matchOn);
		const outcome = partial.length > 0 ? 'createdPartialMatch' : 'created';
		return marked(ctx, await create(), outcome, matchOn, customerIds(partial));
	});
}
