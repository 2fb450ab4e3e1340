import type { IDataObject } from 'n8n-workflow';
import { isObject } from '../values';

/** Page metadata of a paginated list (spec section 2), as far as the reply carries it. */
export interface Pagination {
	total?: number;
	limit?: number;
	offset?: number;
	hasMore: boolean;
}

export interface ListPage {
	items: IDataObject[];
	pagination?: Pagination;
}

/** A list reply none of whose shapes was recognised, and why. */
export interface UnexpectedList {
	problem: string;
}

/** Thrown when a reply has none of the shapes the node understands. */
export class UnexpectedReplyError extends Error {}

function shapeOf(value: unknown): string {
	if (Array.isArray(value)) return 'an array';
	if (isObject(value)) {
		const keys = Object.keys(value).slice(0, 8);
		return keys.length ? `an object with ${keys.join(', ')}` : 'an empty object';
	}
	return value === null ? 'null' : `a ${typeof value}`;
}

function toItem(value: unknown): IDataObject {
	// n8n items are objects; a list of bare values keeps each one under "value".
	return isObject(value) ? value : { value: value as IDataObject[string] };
}

function number(value: unknown): number | undefined {
	const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : undefined;
}

function readPagination(value: unknown): Pagination | undefined {
	if (!isObject(value)) return undefined;
	return {
		total: number(value.total),
		limit: number(value.limit),
		offset: number(value.offset),
		hasMore: value.hasMore === true || value.hasMore === 'true',
	};
}

/**
 * Finds the items of a list reply. Understood shapes, in this order: a top-level array;
 * `content` as an array; an array under one of `keys` inside `content` (e.g. customers,
 * businesses, items); an array under `data`. A pagination object is read from
 * `content.pagination` or a top-level `pagination`.
 */
export function extractList(body: unknown, keys: string[]): ListPage | UnexpectedList {
	if (Array.isArray(body)) return { items: body.map(toItem) };
	if (!isObject(body)) return { problem: `Expected a list but the reply was ${shapeOf(body)}.` };
	const content = body.content;
	const pagination =
		readPagination(isObject(content) ? content.pagination : undefined) ??
		readPagination(body.pagination);
	if (Array.isArray(content)) return { items: content.map(toItem), pagination };
	if (isObject(content)) {
		for (const key of keys) {
			const list = content[key];
			if (Array.isArray(list)) return { items: list.map(toItem), pagination };
		}
	}
	if (Array.isArray(body.data)) return { items: body.data.map(toItem), pagination };
	const notList = isObject(content) ? keys.find((key) => content[key] !== undefined) : undefined;
	if (notList !== undefined && isObject(content)) {
		return {
			problem: `Expected a list, but content.${notList} is not a list: it is ${shapeOf(content[notList])}.`,
		};
	}
	const where = isObject(content)
		? `content was ${shapeOf(content)}`
		: `the reply was ${shapeOf(body)}`;
	return {
		problem: `Expected the list under content.${keys.join(', content.')}, content or data, but ${where}.`,
	};
}

/**
 * The record of a single-object reply. In the `{message, content}` envelope that is `content`,
 * or `content[key]` when content only wraps the record (`{customer: {...}}` and nothing else:
 * with other keys beside it, content is returned whole so that their data is not lost); any
 * other JSON object is returned as it came.
 */
export function extractRecord(body: unknown, key: string): IDataObject {
	if (!isObject(body)) {
		throw new UnexpectedReplyError(`Expected a JSON object but the reply was ${shapeOf(body)}.`);
	}
	const content = body.content;
	if (isObject(content)) {
		const inner = content[key];
		const onlyWrapsIt = Object.keys(content).length === 1;
		return isObject(inner) && onlyWrapsIt ? inner : content;
	}
	return body;
}

/** The identifier of a record under the first of `keys` it has, for de-duplication and list search. */
export function recordId(record: IDataObject, keys: string[]): string | undefined {
	for (const key of keys) {
		const value = record[key];
		if (typeof value === 'string' && value !== '') return value;
		if (typeof value === 'number') return String(value);
	}
	return undefined;
}
