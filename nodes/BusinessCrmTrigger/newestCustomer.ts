import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../BusinessCrm/api/lists';
import { onlyOfBusiness } from './businessFilter';
import { readCustomerPage, readCustomers } from './customerList';

/**
 * For the editor's Fetch Test Event: the newest customer (of the chosen business), taken as the
 * last one in list order, so the user sees what the trigger emits. The remembered state is
 * neither read nor changed.
 *
 * Without Business: the first page (of 1) gives the total, a second request the last customer.
 * With Business: pages of 100 read backwards from the total until one holds a customer of that
 * business, at most the list's ceil(N/100) pages (these pages do not overlap). A total that does not hold (a page before it
 * empty, or only customers already read) or is not a whole number is not followed further: the
 * list is read from its start instead, as the trigger's polls read it.
 */
export async function newestCustomer(
	ctx: IPollFunctions,
	businessId: string | undefined,
): Promise<IDataObject[]> {
	const ofBusiness = (customers: IDataObject[]) =>
		businessId === undefined ? customers : onlyOfBusiness(ctx, customers, businessId);
	const pageSize = businessId === undefined ? 1 : MAX_PAGE_SIZE;
	const readAll = async () => ofBusiness((await readCustomers(ctx, 0)).items).slice(-1);

	const head = await readCustomerPage(ctx, 0, pageSize);
	if (!head.hasMore) return ofBusiness(head.items).slice(-1);
	if (head.total === undefined) return await readAll();
	const seen = new Set(head.ids);
	for (let end = head.total; end > head.items.length; ) {
		const start = Math.max(head.items.length, end - pageSize);
		const page = await readCustomerPage(ctx, start, end - start);
		if (!page.ids.some((id) => !seen.has(id))) return await readAll();
		page.ids.forEach((id) => seen.add(id));
		const newest = ofBusiness(page.items).slice(-1);
		if (newest.length > 0) return newest;
		end = start;
	}
	return ofBusiness(head.items).slice(-1);
}
