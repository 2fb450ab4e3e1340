/** Where the node finds the list or the record in a reply, and how it names a reply it cannot read (api/replyShapes.ts). */
import {
	extractList,
	extractRecord,
	recordId,
	type ListPage,
} from '../../nodes/BusinessCrm/api/replyShapes';
import {
	REPLY_OF_UNEXPECTED_SHAPE,
	REPLY_SHAPES_HELP,
} from '../../nodes/BusinessCrm/resources/operation';
import { runNode } from '../helpers/harness.cjs';
import { byId } from '../helpers/fixtures.cjs';
import { always, withApi } from '../helpers/scripted-api.cjs';

/** The page of a reply that must be understood. */
function page(body: unknown): ListPage {
	const result = extractList(body, KEYS);
	if ('problem' in result) throw new Error(result.problem);
	return result;
}

const KEYS = ['businesses', 'items', 'data'];
const a = { id: 'biz_a', name: 'A' };
const b = { id: 'biz_b', name: 'B' };

describe('list replies: every shape the README lists', () => {
	it.each([
		['a top-level array', [a, b]],
		['content as an array', { message: 'ok', content: [a, b] }],
		['content.businesses', { message: 'ok', content: { businesses: [a, b] } }],
		['content.items', { message: 'ok', content: { items: [a, b] } }],
		['content.data', { message: 'ok', content: { data: [a, b] } }],
		['data', { data: [a, b] }],
	])('finds the items in %s', (_, body) => {
		expect(extractList(body, KEYS)).toEqual({ items: [a, b], pagination: undefined });
	});

	it('reads pagination from content.pagination or a top-level pagination object', () => {
		const pagination = { total: 45, limit: 20, offset: 0, hasMore: true };
		expect(page({ content: { businesses: [a], pagination } }).pagination).toEqual(pagination);
		expect(page({ data: [a], pagination: { ...pagination, hasMore: 'true' } }).pagination).toEqual(
			pagination,
		);
	});

	it('takes numbers sent as strings, and treats anything but true as no more pages', () => {
		expect(
			page({
				content: { items: [], pagination: { total: '3', limit: '2', offset: '0', hasMore: 1 } },
			}).pagination,
		).toEqual({ total: 3, limit: 2, offset: 0, hasMore: false });
	});

	it('says content.customers is not a list when it is an object', () => {
		expect(
			extractList({ content: { customers: { id: 'cust_1' }, pagination: { total: 1 } } }, [
				'customers',
			]),
		).toEqual({
			problem: 'Expected a list, but content.customers is not a list: it is an object with id.',
		});
	});

	it('keeps bare values as items with a "value" field', () => {
		expect(page(['x', 2]).items).toEqual([{ value: 'x' }, { value: 2 }]);
	});

	it.each([
		['null', null, 'Expected a list but the reply was null.'],
		['a string', 'oops', 'Expected a list but the reply was a string.'],
		[
			'an object without a list',
			{ message: 'ok', content: { total: 3 } },
			'Expected the list under content.businesses, content.items, content.data, content or data, but content was an object with total.',
		],
		[
			'content.businesses that is not a list',
			{ message: 'ok', content: { businesses: { a, b }, pagination: { total: 2 } } },
			'Expected a list, but content.businesses is not a list: it is an object with a, b.',
		],
		[
			'content.items that is null',
			{ message: 'ok', content: { items: null } },
			'Expected a list, but content.items is not a list: it is null.',
		],
		[
			'an empty object',
			{},
			'Expected the list under content.businesses, content.items, content.data, content or data, but the reply was an empty object.',
		],
	])('explains a reply that is %s', (_, body, problem) => {
		expect(extractList(body, KEYS)).toEqual({ problem });
	});
});

describe('single-record replies', () => {
	it('unwraps content.<key>, else content, else the body', () => {
		expect(extractRecord({ message: 'ok', content: { business: a } }, 'business')).toEqual(a);
		expect(extractRecord({ message: 'ok', content: a }, 'business')).toEqual(a);
		expect(extractRecord(a, 'business')).toEqual(a);
	});

	it('keeps what content holds beside the record: content is output whole then', () => {
		const content = { business: a, owner: { id: 'usr_1' }, plan: 'pro' };
		expect(extractRecord({ message: 'ok', content }, 'business')).toEqual(content);
		expect(extractRecord({ message: 'ok', content: { business: 'biz_a' } }, 'business')).toEqual({
			business: 'biz_a',
		});
	});

	it('refuses a reply that is not an object', () => {
		expect(() => extractRecord([a], 'business')).toThrow(
			'Expected a JSON object but the reply was an array.',
		);
	});

	it('a JSON list where Business Get expects one business fails the item, naming the shape', async () =>
		await withApi(always(200, '[{"id":"biz_1"}]'), async (api) => {
			const { items, error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				credentials: api.credentials,
			});
			expect(items).toEqual([]);
			expect(error?.name).toBe('NodeApiError');
			expect(error?.message).toBe(REPLY_OF_UNEXPECTED_SHAPE);
			expect(error?.description).toBe(
				`Expected a JSON object but the reply was an array. ${REPLY_SHAPES_HELP}`,
			);
			expect(error?.context.itemIndex).toBe(0);
		}));
});

describe('record identifiers', () => {
	it("uses the first key present, and never a customer's businessId when only id counts", () => {
		expect(recordId({ _id: 'x', uuid: 'y' }, ['id', '_id', 'uuid'])).toBe('x');
		expect(recordId({ businessId: 'biz_1' }, ['id'])).toBeUndefined();
		expect(recordId({ id: 7 }, ['id'])).toBe('7');
	});
});

describe('the words for a reply of an unexpected shape, and what counts as a number or an id', () => {
	it('an object is named by its first 8 keys, not a wall of them', () => {
		const content = Object.fromEntries('abcdefghij'.split('').map((key) => [key, 1]));
		expect(extractList({ content }, ['customers'])).toEqual({
			problem:
				'Expected the list under content.customers, content or data, but content was an object with a, b, c, d, e, f, g, h.',
		});
	});

	it('a pagination number that is null, blank text or not a number is no number at all', () => {
		for (const blank of [null, '  ', 'many', true]) {
			expect(page({ data: [a], pagination: { total: blank, limit: 20 } }).pagination).toEqual({
				total: undefined,
				limit: 20,
				offset: undefined,
				hasMore: false,
			});
		}
		expect(page({ data: [a], pagination: { total: ' 45 ' } }).pagination?.total).toBe(45);
	});

	it('an empty id is no id: two records without one are two records', () => {
		expect(recordId({ id: '' }, ['id'])).toBeUndefined();
		expect(recordId({ id: '', code: 7 }, ['id', 'code'])).toBe('7');
	});
});
