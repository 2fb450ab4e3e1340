import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { itemContext } from '../../operation';
import { findCustomers } from '../../../state/executionCustomers';
import { MATCH_KEY_NAMES, recordKey, type MatchKey } from '../../../state/customerIndex';
import { trimmedText } from '../../../values';
import { rowLabel } from './importRun';
import { SKIP_MARK } from './mark';

/**
 * What a customer created without a check may share with one already in its business: the first
 * it has of these, so that a customer without an email or phone (the README's first customer) is
 * compared by name.
 */
const SHARED: MatchKey[] = ['email', 'phone', 'name'];

/** How many rows the hint names before it counts the rest. */
const NAMED = 5;

export const EACH_RUN_ADDS_AGAIN =
	'Each run of this step adds such a customer again. To add each customer only once, turn on Skip if the Customer Already Exists.';
export const NOT_CHECKED_FOR_DUPLICATES =
	'Customers were created without Skip if the Customer Already Exists, and the node could not read the customer list to check them for duplicates';

interface Twin {
	label: string;
	id: string;
	kind: MatchKey;
	others: string[];
}

function described({ label, id, kind, others }: Twin): string {
	return `${label}, created as ${id}, has the same ${MATCH_KEY_NAMES[kind].toLowerCase()} as ${others.join(', ')}`;
}

/** The customers of its business other than `created` that share its email (else phone, else name). */
async function twinOf(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	index: number,
): Promise<Twin | undefined> {
	const created = item.json;
	// Only the first value it has: a shared name says little beside an email of its own.
	const kind = SHARED.find((each) => recordKey(created, each) !== '');
	if (kind === undefined) return undefined;
	// A reply without the business counts every business, rather than none.
	const business = trimmedText(created.businessId);
	const others = (await findCustomers(itemContext(ctx, index), kind, recordKey(created, kind)))
		.filter((customer: IDataObject) => !business || trimmedText(customer.businessId) === business)
		.map((customer: IDataObject) => String(customer.id))
		.filter((id) => id !== String(created.id));
	if (others.length === 0) return undefined;
	const label = rowLabel(index, created.firstName, created.lastName);
	return { label, id: String(created.id), kind, others };
}

/**
 * After a run from the editor (Execute step, Execute workflow) that created customers without
 * Skip Existing: a warning in the output pane when one of them shares its email or phone with
 * another customer of the CRM. A second click on Execute step adds the customer a second time,
 * and the green run would otherwise pass for a success. Only in manual runs: the check reads the
 * customer list (once per execution, shared with Find and Skip Existing), which production runs
 * need not pay for.
 */
export async function hintDuplicates(
	ctx: IExecuteFunctions,
	output: INodeExecutionData[],
): Promise<void> {
	if (ctx.getMode() !== 'manual') return;
	const unchecked = output.filter(
		(item) => typeof item.json.id === 'string' && item.json[SKIP_MARK] === undefined,
	);
	const twins: Twin[] = [];
	try {
		for (const item of unchecked) {
			const paired = item.pairedItem as { item: number };
			const twin = await twinOf(ctx, item, paired.item);
			if (twin) twins.push(twin);
		}
	} catch (caught) {
		// The customers are created: a check that failed must not fail the run, only say so.
		const why = caught instanceof Error ? caught.message : String(caught);
		ctx.addExecutionHints({
			message: `${NOT_CHECKED_FOR_DUPLICATES}: ${why}`,
			type: 'warning',
			location: 'outputPane',
		});
		return;
	}
	if (twins.length === 0) return;
	const more = twins.length > NAMED ? ` (and ${twins.length - NAMED} more)` : '';
	const which = twins.slice(0, NAMED).map(described).join('; ');
	ctx.addExecutionHints({
		message: `Possible duplicate${twins.length === 1 ? '' : 's'}: ${which}${more}. ${EACH_RUN_ADDS_AGAIN}`,
		type: 'warning',
		location: 'outputPane',
	});
}
