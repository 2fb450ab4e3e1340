import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../BusinessCrm/shared/pagination';
import { businessOption, onlyOfBusiness } from './businessFilter';
import { customerList, readCustomersFrom, readPage } from './customerList';

/**
 * For the editor's Fetch Test Event: the newest customer (of the chosen business), taken as the
 * last one in list order, so the user sees what the trigger emits. Two requests without the
 * Business option; with it, pages are read backwards from the end until one of that business
 * turns up. The remembered state is neither read nor changed.
 */
export async function newestCustomer(ctx: IPollFunctions): Promise<IDataObject[]> {
	const list = await customerList(ctx);
	const businessId = businessOption(ctx);
	const ofBusiness = (customers: IDataObject[]) =>
		businessId === undefined ? customers : onlyOfBusiness(ctx, customers, businessId);
	const pageSize = businessId === undefined ? 1 : MAX_PAGE_SIZE;

	const head = await readPage(ctx, list, 0, pageSize);
	if (head.total === undefined) {
		// Without a total the end is only found by reading to it.
		const all = head.hasMore ? await readCustomersFrom(ctx, list, 0) : head.items;
		return ofBusiness(all).slice(-1);
	}
	for (let end = head.total; end > head.items.length; ) {
		const start = Math.max(head.items.length, end - pageSize);
		const page = await readPage(ctx, list, start, end - start);
		const newest = ofBusiness(page.items).slice(-1);
		if (newest.length > 0) return newest;
		end = start;
	}
	return ofBusiness(head.items).slice(-1);
}
