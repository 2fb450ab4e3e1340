/**
 * Sandbox API server: a real HTTP server on 127.0.0.1 that implements the API spec
 * ("Business and Customer Service Interface") as faithfully as the spec allows, plus switches for
 * the faults a client must survive. Node standard library only.
 *
 * Guesses where the spec says "not shown" (the real API may differ on every point below):
 *  1. Success bodies of all endpoints use the customer-list envelope {message, content}:
 *     - GET  /api/public/v1/test-api-key     200 {message:'API key is valid', content:{organizationId}}
 *     - GET  /api/business/{businessId}      200 {message:'Business retrieved', content:{business}}
 *     - POST /api/business/crm/customer/add  201 {message:'Customer added', content:{customer}}
 *     - GET  /api/business/list/all          depends on the configurable shape (guess 7).
 *  2. Business fields: id ('biz_<16 hex>'), name, email, phone, createdAt (ISO 8601 UTC).
 *  3. Customer fields beyond id/firstName/lastName: businessId, email?, phone?, createdAt, plus any
 *     extra string/number/boolean fields given at creation. Ids are 'cust_<16 lowercase hex>'.
 *  4. Creating a customer requires businessId, firstName and lastName, each a string that is not
 *     blank after trimming; they are stored trimmed. Checked in that order, first failure wins:
 *     missing/null/blank -> 400 '<field> is required', other type -> 400 '<field> must be a string'.
 *     email and phone are optional strings; null or '' counts as absent (not stored); email is
 *     checked loosely (something@something.tld) -> 400 'email must be a valid email address'.
 *     Other fields: string/number/boolean kept as-is, null dropped, objects/arrays
 *     -> 400 '<field> must be a string, number or boolean'. Client-sent id and createdAt are
 *     ignored (the server assigns both). Body validation happens before the business lookup, so a
 *     bad body with an unknown businessId gets 400, not 404.
 *     Body problems: empty -> 400 'Request body is required'; unparsable -> 400 'Request body is
 *     not valid JSON'; JSON that is not an object -> 400 'Request body must be a JSON object';
 *     over 1 MiB -> 413. Content-Type is not checked. Unknown businessId -> 404
 *     'Business <id> not found'.
 *  5. Error bodies for every status are JSON {message, err}; message is the standard HTTP status
 *     text (Node's STATUS_CODES), err a detail. Only 429 adds retryAfter.
 *  6. retryAfter is in seconds: whole seconds until the rate-limit window resets, at least 1. The
 *     real limiter also sends a Retry-After header with the same value.
 *  7. /api/business/list/all: whether it paginates is configurable (businessListShape), default
 *     'paginated' = {message:'Businesses retrieved', content:{businesses, pagination}} with the same
 *     limit/offset rules as customers but a default limit of businessListDefaultLimit (20). The
 *     unpaginated shapes ignore limit/offset altogether (no validation). No search parameter.
 *  8. Invalid paging parameters -> 400. Accepted: decimal digits only, so '1.5', '-1', '+1', 'abc',
 *     ' 1' and '' are rejected. Errors: 'limit must be an integer from 1 to 100',
 *     'offset must be an integer greater than or equal to 0'. An offset past the end gives an empty
 *     page with hasMore false. When a query parameter repeats, the first value counts.
 *  9. Check order for every request: fault switches (test-only), then X-API-Key (missing, empty or
 *     unknown -> 401 {message:'Unauthorized', err:'Invalid or missing API key'}), then the rate
 *     limit, then X-Organization-ID (missing -> 403 'Missing X-Organization-ID header', another
 *     organization -> 403 'API key does not belong to organization <id>'), then routing (unknown
 *     path -> 404, known path with another method -> 405 with an Allow header), then the key's
 *     permission for the route (-> 403 'API key lacks permission <perm>'), then the body.
 *     So an unauthenticated request to an unknown path gets 401, not 404; HEAD and OPTIONS get 405.
 * 10. The /api/business/... endpoints answer only without the /api/public/v1 prefix, and the
 *     /api/public/v1/... endpoints only with it; the other spelling is an unknown route (404).
 * 11. GET /api/business/{businessId}: the segment is percent-decoded; malformed percent-encoding ->
 *     400 'businessId is not valid percent-encoding'; unknown or empty id -> 404 'Business <id> not
 *     found'; any extra segment (including a trailing slash) -> 404 unknown route. So
 *     /api/business/list and /api/business/crm are looked up as business ids (404 not found).
 * 12. Rate limit: fixed window per API key, started by the key's first request in the window; only
 *     requests with a known key count; a 429 does not consume quota. No X-RateLimit-* headers (the
 *     spec shows none). Numbers per tier are a sandbox option (default: no limit).
 * 13. An organization sees only its own data: the seeded store belongs to organizationId; the
 *     other organization (otherOrganizationId / otherOrgApiKey) has no businesses and no customers.
 * 14. Customer list order is store order (creation order), oldest first; new customers are appended.
 * 15. totalOverride changes only the reported total; hasMore is still computed from the real count.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	generateBusinesses,
	generateCustomer,
	generateCustomers,
	IdSpace,
	token,
} from './data.cjs';

/* ------------------------------------------------------------------------------------------ */
/* Public types (the lead codes against these names)                                           */
/* ------------------------------------------------------------------------------------------ */

export interface SandboxBusiness {
	id: string;
	name: string;
	email: string;
	phone: string;
	createdAt: string;
	[k: string]: unknown;
}

export interface SandboxCustomer {
	id: string;
	businessId: string;
	firstName: string;
	lastName: string;
	email?: string;
	phone?: string;
	createdAt: string;
	[k: string]: unknown;
}

export type BusinessListShape =
	| 'paginated'
	| 'array'
	| 'content-array'
	| 'content-businesses'
	| 'content-items'
	| 'data';

export interface RequestLogEntry {
	method: string;
	/** Pathname as sent, still percent-encoded, without the query string. */
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	/** Parsed JSON, the raw text when it is not JSON, undefined when there was no body. */
	body: unknown;
	/** Status sent; 0 while in flight and for dropped connections. */
	status: number;
}

/**
 * Matches requests whose pathname starts with `path` (and whose method is `method`), skips the
 * first `after` matches (default 0), then applies to the next `count` (default Infinity).
 */
export interface FaultRule {
	path?: string;
	method?: string;
	/** Only requests whose query has these values, e.g. { offset: '500' } for one page. */
	query?: Record<string, string>;
	after?: number;
	count?: number;
}

export interface Faults {
	/** 429 {message, err, retryAfter}. retryAfter defaults to 1 (seconds); the Retry-After header is
	 *  sent only with retryAfterHeader: true; omitRetryAfter drops the body field. */
	rateLimitBurst?: FaultRule & {
		retryAfter?: number;
		retryAfterHeader?: boolean;
		omitRetryAfter?: boolean;
	};
	/** Default status 500, JSON body {message, err}. */
	serverError?: FaultRule & { status?: number };
	/** Delay before answering (then the request is handled normally, other faults included);
	 *  delayMsByOffset sets the delay of chosen offsets, so pages can answer out of order. */
	slow?: FaultRule & { delayMs: number; delayMsByOffset?: Record<string, number> };
	/** 200 with an HTML body, content-type text/html. */
	notJson?: FaultRule;
	/** 200 with an empty body (content-type application/json, content-length 0). */
	emptyBody?: FaultRule;
	/** Destroy the socket without answering. */
	dropConnection?: FaultRule;
	/** Customers list: hasMore always true (pages past the end are empty). */
	hasMoreForever?: boolean;
	/** Customers list: every page empty, hasMore true. */
	emptyPagesWithHasMore?: boolean;
	/** Customers list: report this total regardless of reality. */
	totalOverride?: number;
	/** Customers list: pagination without a total. */
	omitTotal?: boolean;
	/** Customers list: report this offset whatever was asked for (a broken server). */
	offsetOverride?: number;
	/** Customers list: serve at most this many per page, and say so in limit. */
	pageSizeCap?: number;
}

export interface SandboxOptions {
	/** Default 0 (a random free port). */
	port?: number;
	/** Seed count, default 3. */
	businesses?: number;
	/** Seed count, default 0, spread round-robin across businesses. */
	customers?: number;
	/** Per API key, fixed window; default false. */
	rateLimit?: { limit: number; windowMs: number } | false;
	/** Default 'paginated'. */
	businessListShape?: BusinessListShape;
	/** Default 20, used by the 'paginated' shape when no limit is sent. */
	businessListDefaultLimit?: number;
	/** Keep the request log, default true (the benchmark turns it off). */
	log?: boolean;
}

export interface Sandbox {
	/** 'http://127.0.0.1:<port>', no trailing slash. */
	url: string;
	port: number;
	/** A valid pair with all permissions. */
	apiKey: string;
	organizationId: string;
	/** Valid key of another organization: using it with organizationId -> 403. */
	otherOrgApiKey: string;
	/** The organization otherOrgApiKey belongs to (it owns no data). */
	otherOrganizationId: string;
	/** Valid key of organizationId without permission to add customers: POST add -> 403. */
	readOnlyApiKey: string;
	/** Live store: tests may read and push. */
	businesses: SandboxBusiness[];
	/** Live store in list order: tests may push, even while a paginated read is in progress. */
	customers: SandboxCustomer[];
	/** Request log in arrival order (empty when options.log is false). */
	requests: RequestLogEntry[];
	/** Requests being handled now, and the most at any one time since the last clearLog(). */
	inFlight: number;
	maxInFlight: number;
	/** Empties the log and restarts maxInFlight. */
	clearLog(): void;
	/** Replaces all faults; per-rule counters restart. */
	setFaults(f: Faults): void;
	resetFaults(): void;
	setBusinessListShape(s: BusinessListShape): void;
	/** If set, called (and awaited) for every request after its body is read and before anything
	 *  else happens to it: lets a test insert customers in the middle of a paginated read, or find
	 *  the process that sent it from the client's port (its connection is open while this runs). */
	onRequest?: (
		entry: RequestLogEntry,
		client: { port: number | undefined },
	) => void | Promise<void>;
	/** Replace the customers (in place, same array) with n generated ones. */
	seedCustomers(n: number): void;
	/**
	 * Adds n customers as the add endpoint would (fresh ids, createdAt now), spread round-robin
	 * over the businesses unless one is given, at the end of the list or before index `at`
	 * (a list that is not append-ordered). Returns them. Deleting, reordering or shrinking the
	 * list needs no switch: tests change `customers` in place.
	 */
	addCustomers(n: number, options?: { at?: number; businessId?: string }): SandboxCustomer[];
	/** Closes the server and every open socket, slow requests in flight included. */
	close(): Promise<void>;
}

/* ------------------------------------------------------------------------------------------ */
/* Internals                                                                                   */
/* ------------------------------------------------------------------------------------------ */

const PUBLIC_PREFIX = '/api/public/v1';
const BUSINESS_PREFIX = '/api/business/';
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_PAGE_LIMIT = 100;
const DEFAULT_PAGE_LIMIT = 20;
// Deliberately loose: the real rules are unknown, so only reject what is clearly not an address.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const FAULT_HTML =
	'<!DOCTYPE html>\n<html><head><title>Sign in</title></head>' +
	'<body><h1>Please sign in</h1><p>This page is served by a proxy in front of the API.</p></body></html>\n';

type Permission = 'businesses:read' | 'customers:read' | 'customers:write';
const ALL_PERMISSIONS: ReadonlySet<Permission> = new Set([
	'businesses:read',
	'customers:read',
	'customers:write',
]);
const READ_PERMISSIONS: ReadonlySet<Permission> = new Set(['businesses:read', 'customers:read']);

interface ApiKeyRecord {
	organizationId: string;
	permissions: ReadonlySet<Permission>;
}

/** Rules in the order they are checked; the first that fires decides (slow only delays). */
const FAULT_RULES = [
	'dropConnection',
	'slow',
	'rateLimitBurst',
	'serverError',
	'notJson',
	'emptyBody',
] as const;
type FaultRuleName = (typeof FAULT_RULES)[number];

type RouteId = 'testApiKey' | 'listCustomers' | 'addCustomer' | 'listBusinesses' | 'getBusiness';

interface RouteMatch {
	/** Method -> route served at this path. */
	methods: Partial<Record<string, RouteId>>;
	/** Raw (still encoded) path segment for the business detail route. */
	businessSegment?: string;
}

/** A handler's answer; errors are thrown as HttpError instead. */
interface Reply {
	status: number;
	body: unknown;
}

interface Exchange {
	query: Record<string, string>;
	bodyText: string | undefined;
	organizationId: string;
	route: RouteMatch;
}

/** Thrown anywhere in request handling; turned into the JSON error body {message, err, ...extra}. */
class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly err: string,
		readonly headers: Record<string, string> = {},
		readonly extra: Record<string, unknown> = {},
	) {
		super(err);
	}
}

function errorBody(status: number, err: string, extra: Record<string, unknown> = {}) {
	return { message: STATUS_CODES[status] ?? 'Error', err, ...extra };
}

function matchRoute(pathname: string): RouteMatch | undefined {
	switch (pathname) {
		case `${PUBLIC_PREFIX}/test-api-key`:
			return { methods: { GET: 'testApiKey' } };
		case `${PUBLIC_PREFIX}/customers`:
			return { methods: { GET: 'listCustomers' } };
		case `${BUSINESS_PREFIX}crm/customer/add`:
			return { methods: { POST: 'addCustomer' } };
		case `${BUSINESS_PREFIX}list/all`:
			return { methods: { GET: 'listBusinesses' } };
	}
	if (pathname.startsWith(BUSINESS_PREFIX)) {
		const segment = pathname.slice(BUSINESS_PREFIX.length);
		if (!segment.includes('/'))
			return { methods: { GET: 'getBusiness' }, businessSegment: segment };
	}
	return undefined;
}

const ROUTE_PERMISSION: Record<RouteId, Permission | undefined> = {
	testApiKey: undefined,
	listCustomers: 'customers:read',
	addCustomer: 'customers:write',
	listBusinesses: 'businesses:read',
	getBusiness: 'businesses:read',
};

function firstValues(params: URLSearchParams): Record<string, string> {
	const seen = new Map<string, string>();
	for (const [key, value] of params) if (!seen.has(key)) seen.set(key, value);
	// fromEntries defines own properties, so a '__proto__' parameter cannot touch the prototype.
	return Object.fromEntries(seen);
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
	const out: [string, string][] = [];
	for (const [name, value] of Object.entries(headers)) {
		if (value !== undefined) out.push([name, Array.isArray(value) ? value.join(', ') : value]);
	}
	return Object.fromEntries(out);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) as unknown };
	} catch {
		return { ok: false };
	}
}

/** undefined for malformed percent-encoding such as '%E0%A4%A'. */
function decodeSegment(segment: string): string | undefined {
	try {
		return decodeURIComponent(segment);
	} catch {
		return undefined;
	}
}

function parseForLog(text: string | undefined): unknown {
	if (text === undefined || text === '') return undefined;
	const parsed = parseJson(text);
	return parsed.ok ? parsed.value : text;
}

/** Resolves with the body text, or undefined when there is none; tooLarge once over the cap. */
async function readBody(
	req: IncomingMessage,
): Promise<{ text: string | undefined; tooLarge: boolean }> {
	const chunks: Buffer[] = [];
	let size = 0;
	let tooLarge = false;
	// Keep draining past the cap (without storing) so the client can still read our 413.
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) tooLarge = true;
		else chunks.push(chunk);
	}
	if (size === 0) return { text: undefined, tooLarge: false };
	return { text: tooLarge ? undefined : Buffer.concat(chunks).toString('utf8'), tooLarge };
}

function parsePageParam(
	query: Record<string, string>,
	name: 'limit' | 'offset',
	fallback: number,
	min: number,
	max: number,
	message: string,
): number {
	const raw = query[name];
	if (raw === undefined) return fallback;
	if (!/^\d+$/.test(raw)) throw new HttpError(400, message);
	const value = Number(raw);
	if (value < min || value > max) throw new HttpError(400, message);
	return value;
}

function parsePage(
	query: Record<string, string>,
	defaultLimit: number,
): { limit: number; offset: number } {
	return {
		limit: parsePageParam(
			query,
			'limit',
			defaultLimit,
			1,
			MAX_PAGE_LIMIT,
			'limit must be an integer from 1 to 100',
		),
		offset: parsePageParam(
			query,
			'offset',
			0,
			0,
			Number.MAX_SAFE_INTEGER,
			'offset must be an integer greater than or equal to 0',
		),
	};
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requiredString(body: Record<string, unknown>, field: string): string {
	const value = body[field];
	if (value === undefined || value === null) throw new HttpError(400, `${field} is required`);
	if (typeof value !== 'string') throw new HttpError(400, `${field} must be a string`);
	const trimmed = value.trim();
	if (trimmed === '') throw new HttpError(400, `${field} is required`);
	return trimmed;
}

/** undefined when absent; null and '' count as absent because form-driven clients send them. */
function optionalString(body: Record<string, unknown>, field: string): string | undefined {
	const value = body[field];
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string') throw new HttpError(400, `${field} must be a string`);
	const trimmed = value.trim();
	return trimmed === '' ? undefined : trimmed;
}

/** Fields the server owns or validates itself; everything else is passed through. */
const CUSTOMER_RESERVED_FIELDS = new Set([
	'id',
	'createdAt',
	'businessId',
	'firstName',
	'lastName',
	'email',
	'phone',
]);

/* ------------------------------------------------------------------------------------------ */
/* Server                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/** Every business list shape the sandbox can answer in. */
export const BUSINESS_LIST_SHAPES: ReadonlySet<string> = new Set<BusinessListShape>([
	'paginated',
	'array',
	'content-array',
	'content-businesses',
	'content-items',
	'data',
]);

/** Fails at configuration time rather than with a puzzling 500 on the next list request. */
function checkShape(shape: BusinessListShape): BusinessListShape {
	if (!BUSINESS_LIST_SHAPES.has(shape))
		throw new RangeError(`unknown business list shape: ${String(shape)}`);
	return shape;
}

function validateOptions(options: SandboxOptions): void {
	const counts: [string, number | undefined][] = [
		['port', options.port],
		['businesses', options.businesses],
		['customers', options.customers],
	];
	for (const [name, value] of counts) {
		if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
			throw new RangeError(`sandbox option ${name} must be a non-negative integer, got ${value}`);
		}
	}
	const limit = options.businessListDefaultLimit;
	if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
		throw new RangeError(
			`sandbox option businessListDefaultLimit must be a positive integer, got ${limit}`,
		);
	}
	if (options.rateLimit) {
		const { limit: max, windowMs } = options.rateLimit;
		if (!Number.isSafeInteger(max) || max < 1 || !(windowMs > 0)) {
			throw new RangeError(
				'sandbox option rateLimit needs a positive integer limit and a positive windowMs',
			);
		}
	}
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	validateOptions(options);
	const logEnabled = options.log ?? true;
	const rateLimit = options.rateLimit ?? false;
	const businessListDefaultLimit = options.businessListDefaultLimit ?? DEFAULT_PAGE_LIMIT;
	let businessListShape: BusinessListShape = checkShape(options.businessListShape ?? 'paginated');

	// Fixed, index-derived credentials: the CLI prints the same key on every run.
	const organizationId = `org_${token(IdSpace.credential, 0)}`;
	const otherOrganizationId = `org_${token(IdSpace.credential, 1)}`;
	const apiKey = `sk_sandbox_${token(IdSpace.credential, 2)}${token(IdSpace.credential, 3)}`;
	const readOnlyApiKey = `sk_sandbox_${token(IdSpace.credential, 4)}${token(IdSpace.credential, 5)}`;
	const otherOrgApiKey = `sk_sandbox_${token(IdSpace.credential, 6)}${token(IdSpace.credential, 7)}`;
	const apiKeys = new Map<string, ApiKeyRecord>([
		[apiKey, { organizationId, permissions: ALL_PERMISSIONS }],
		[readOnlyApiKey, { organizationId, permissions: READ_PERMISSIONS }],
		[otherOrgApiKey, { organizationId: otherOrganizationId, permissions: ALL_PERMISSIONS }],
	]);

	let faults: Faults = {};
	let faultSeen: Record<FaultRuleName, number> = freshFaultCounters();
	const rateWindows = new Map<string, { start: number; count: number }>();
	let addedCustomers = 0;
	let closing = false;
	// Wake-up functions of in-flight `slow` delays, so close() need not wait for them.
	const pendingDelays = new Set<() => void>();

	function freshFaultCounters(): Record<FaultRuleName, number> {
		return {
			dropConnection: 0,
			slow: 0,
			rateLimitBurst: 0,
			serverError: 0,
			notJson: 0,
			emptyBody: 0,
		};
	}

	const initialBusinesses = generateBusinesses(options.businesses ?? 3);
	const sandbox: Sandbox = {
		url: '',
		port: 0,
		apiKey,
		organizationId,
		otherOrgApiKey,
		otherOrganizationId,
		readOnlyApiKey,
		businesses: initialBusinesses,
		customers: generateCustomers(options.customers ?? 0, initialBusinesses),
		requests: [],
		inFlight: 0,
		maxInFlight: 0,
		clearLog() {
			sandbox.requests.length = 0;
			sandbox.maxInFlight = sandbox.inFlight;
		},
		setFaults(f: Faults) {
			faults = { ...f };
			faultSeen = freshFaultCounters();
		},
		resetFaults() {
			sandbox.setFaults({});
		},
		setBusinessListShape(s: BusinessListShape) {
			businessListShape = checkShape(s);
		},
		seedCustomers(n: number) {
			const fresh = generateCustomers(n, sandbox.businesses);
			// In place, so references a test already holds stay live.
			sandbox.customers.length = 0;
			for (const customer of fresh) sandbox.customers.push(customer);
		},
		addCustomers(n: number, { at, businessId }: { at?: number; businessId?: string } = {}) {
			const added: SandboxCustomer[] = [];
			for (let i = 0; i < n; i++) {
				const index = addedCustomers++;
				const owner = businessId ?? sandbox.businesses[index % sandbox.businesses.length]?.id;
				if (owner === undefined) throw new RangeError('cannot add customers without a business');
				added.push({
					...generateCustomer(index, owner),
					id: `cust_${token(IdSpace.addedCustomer, index)}`,
					createdAt: new Date().toISOString(),
				});
			}
			// push one by one: spreading 100,000 arguments into splice would overflow the stack.
			if (at === undefined) for (const customer of added) sandbox.customers.push(customer);
			else sandbox.customers.splice(at, 0, ...added);
			return added;
		},
		close,
	};

	/* -- data scoped to the caller's organization ------------------------------------------- */

	const NO_DATA: readonly never[] = Object.freeze([]);
	const businessesOf = (org: string): readonly SandboxBusiness[] =>
		org === organizationId ? sandbox.businesses : NO_DATA;
	const customersOf = (org: string): readonly SandboxCustomer[] =>
		org === organizationId ? sandbox.customers : NO_DATA;
	const findBusiness = (org: string, id: string) => businessesOf(org).find((b) => b.id === id);

	/* -- route handlers --------------------------------------------------------------------- */

	const handlers: Record<RouteId, (x: Exchange) => Reply> = {
		testApiKey: (x) => ({
			status: 200,
			body: { message: 'API key is valid', content: { organizationId: x.organizationId } },
		}),

		listCustomers: (x) => {
			const page = parsePage(x.query, DEFAULT_PAGE_LIMIT);
			const { offset } = page;
			const limit = Math.min(page.limit, faults.pageSizeCap ?? Infinity);
			const all = customersOf(x.organizationId);
			// slice copies only the page: reading 100,000 customers stays O(page) per request.
			const customers = faults.emptyPagesWithHasMore ? [] : all.slice(offset, offset + limit);
			let hasMore = offset + customers.length < all.length;
			if (faults.hasMoreForever || faults.emptyPagesWithHasMore) hasMore = true;
			const total = faults.totalOverride ?? all.length;
			const pagination = {
				...(faults.omitTotal ? {} : { total }),
				limit,
				offset: faults.offsetOverride ?? offset,
				hasMore,
			};
			return {
				status: 200,
				body: { message: 'Customers retrieved', content: { customers, pagination } },
			};
		},

		addCustomer: (x) => {
			if (x.bodyText === undefined || x.bodyText.trim() === '') {
				throw new HttpError(400, 'Request body is required');
			}
			const parsed = parseJson(x.bodyText);
			if (!parsed.ok) throw new HttpError(400, 'Request body is not valid JSON');
			const body = parsed.value;
			if (!isPlainObject(body)) throw new HttpError(400, 'Request body must be a JSON object');

			const businessId = requiredString(body, 'businessId');
			const firstName = requiredString(body, 'firstName');
			const lastName = requiredString(body, 'lastName');
			const email = optionalString(body, 'email');
			if (email !== undefined && !EMAIL_PATTERN.test(email)) {
				throw new HttpError(400, 'email must be a valid email address');
			}
			const phone = optionalString(body, 'phone');
			const extras: [string, string | number | boolean][] = [];
			for (const [field, value] of Object.entries(body)) {
				if (CUSTOMER_RESERVED_FIELDS.has(field) || value === null) continue;
				if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
					throw new HttpError(400, `${field} must be a string, number or boolean`);
				}
				extras.push([field, value]);
			}
			if (!findBusiness(x.organizationId, businessId)) {
				throw new HttpError(404, `Business ${businessId} not found`);
			}

			const customer: SandboxCustomer = {
				id: `cust_${token(IdSpace.addedCustomer, addedCustomers++)}`,
				businessId,
				firstName,
				lastName,
				...(email === undefined ? {} : { email }),
				...(phone === undefined ? {} : { phone }),
				// fromEntries, not assignment, so a "__proto__" field stays a plain field.
				...Object.fromEntries(extras),
				createdAt: new Date().toISOString(),
			};
			sandbox.customers.push(customer);
			return { status: 201, body: { message: 'Customer added', content: { customer } } };
		},

		listBusinesses: (x) => {
			const all = businessesOf(x.organizationId);
			const message = 'Businesses retrieved';
			switch (businessListShape) {
				case 'paginated': {
					const { limit, offset } = parsePage(x.query, businessListDefaultLimit);
					const businesses = all.slice(offset, offset + limit);
					const pagination = {
						total: all.length,
						limit,
						offset,
						hasMore: offset + businesses.length < all.length,
					};
					return { status: 200, body: { message, content: { businesses, pagination } } };
				}
				case 'array':
					return { status: 200, body: all };
				case 'content-array':
					return { status: 200, body: { message, content: all } };
				case 'content-businesses':
					return { status: 200, body: { message, content: { businesses: all } } };
				case 'content-items':
					return { status: 200, body: { message, content: { items: all } } };
				case 'data':
					return { status: 200, body: { data: all } };
			}
		},

		getBusiness: (x) => {
			const id = decodeSegment(x.route.businessSegment ?? '');
			if (id === undefined) throw new HttpError(400, 'businessId is not valid percent-encoding');
			const business = findBusiness(x.organizationId, id);
			if (!business) throw new HttpError(404, `Business ${id} not found`);
			return { status: 200, body: { message: 'Business retrieved', content: { business } } };
		},
	};

	/* -- request pipeline ------------------------------------------------------------------- */

	function send(
		res: ServerResponse,
		entry: RequestLogEntry,
		status: number,
		text: string,
		headers: Record<string, string>,
	): void {
		entry.status = status;
		if (res.headersSent || res.destroyed) return;
		res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
		res.end(text);
	}

	function sendJson(
		res: ServerResponse,
		entry: RequestLogEntry,
		status: number,
		body: unknown,
		headers: Record<string, string> = {},
	): void {
		send(res, entry, status, JSON.stringify(body), {
			'content-type': 'application/json; charset=utf-8',
			...headers,
		});
	}

	function delay(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const wake = () => {
				clearTimeout(timer);
				pendingDelays.delete(wake);
				resolve();
			};
			const timer = setTimeout(wake, ms);
			pendingDelays.add(wake);
		});
	}

	/** Advances every matching rule's counter (rules count independently) and returns those firing. */
	function firingFaults(
		method: string,
		pathname: string,
		query: Record<string, string>,
	): Set<FaultRuleName> {
		const firing = new Set<FaultRuleName>();
		for (const name of FAULT_RULES) {
			const rule = faults[name];
			if (!rule) continue;
			if (rule.path !== undefined && !pathname.startsWith(rule.path)) continue;
			if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
			const wanted = Object.entries(rule.query ?? {});
			if (wanted.some(([key, value]) => query[key] !== value)) continue;
			const seen = ++faultSeen[name];
			const after = rule.after ?? 0;
			if (seen > after && seen <= after + (rule.count ?? Infinity)) firing.add(name);
		}
		return firing;
	}

	/** Throws the 429 when the key's fixed window is used up; counts the request otherwise. */
	function consumeRateLimit(key: string): void {
		if (!rateLimit) return;
		const now = Date.now();
		let window = rateWindows.get(key);
		if (!window || now >= window.start + rateLimit.windowMs) {
			window = { start: now, count: 0 };
			rateWindows.set(key, window);
		}
		if (window.count >= rateLimit.limit) {
			const retryAfter = Math.max(1, Math.ceil((window.start + rateLimit.windowMs - now) / 1000));
			throw new HttpError(
				429,
				`Rate limit of ${rateLimit.limit} requests per ${rateLimit.windowMs} ms exceeded`,
				{ 'retry-after': String(retryAfter) },
				{ retryAfter },
			);
		}
		window.count++;
	}

	function authenticate(req: IncomingMessage): { key: string; record: ApiKeyRecord } {
		const key = req.headers['x-api-key'];
		const record = typeof key === 'string' && key !== '' ? apiKeys.get(key) : undefined;
		if (typeof key !== 'string' || !record) throw new HttpError(401, 'Invalid or missing API key');
		return { key, record };
	}

	function checkOrganization(req: IncomingMessage, record: ApiKeyRecord): void {
		const org = req.headers['x-organization-id'];
		if (typeof org !== 'string' || org === '')
			throw new HttpError(403, 'Missing X-Organization-ID header');
		if (org !== record.organizationId)
			throw new HttpError(403, `API key does not belong to organization ${org}`);
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const method = (req.method ?? 'GET').toUpperCase();
		const rawUrl = req.url ?? '/';
		const queryStart = rawUrl.indexOf('?');
		// Split by hand: new URL() would read a path such as '//x' as a host.
		const pathname = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart);
		const query = firstValues(
			new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1)),
		);
		const entry: RequestLogEntry = {
			method,
			path: pathname,
			query,
			headers: flattenHeaders(req.headers),
			body: undefined,
			status: 0,
		};
		// Logged on arrival, before the body, so the log keeps arrival order under concurrency.
		if (logEnabled) sandbox.requests.push(entry);
		sandbox.inFlight++;
		sandbox.maxInFlight = Math.max(sandbox.maxInFlight, sandbox.inFlight);
		// Until the reply is sent or the connection is gone, whichever comes first.
		let done = false;
		const finished = () => {
			if (done) return;
			done = true;
			sandbox.inFlight--;
		};
		res.once('finish', finished);
		res.once('close', finished);

		let body: { text: string | undefined; tooLarge: boolean };
		try {
			body = await readBody(req);
		} catch {
			return; // the client went away mid-body: nobody to answer
		}
		entry.body = parseForLog(body.text);

		try {
			if (sandbox.onRequest) await sandbox.onRequest(entry, { port: req.socket.remotePort });

			const firing = firingFaults(method, pathname, query);
			if (firing.has('dropConnection')) {
				req.socket.destroy();
				return;
			}
			if (firing.has('slow')) {
				const byOffset = faults.slow?.delayMsByOffset?.[query.offset ?? ''];
				await delay(byOffset ?? faults.slow?.delayMs ?? 0);
				if (closing) return;
			}
			if (firing.has('rateLimitBurst')) {
				const rule = faults.rateLimitBurst ?? {};
				const retryAfter = rule.retryAfter ?? 1;
				const headers: Record<string, string> = rule.retryAfterHeader
					? { 'retry-after': String(Math.ceil(retryAfter)) }
					: {};
				const extra = rule.omitRetryAfter ? {} : { retryAfter };
				sendJson(res, entry, 429, errorBody(429, 'Rate limit exceeded', extra), headers);
				return;
			}
			if (firing.has('serverError')) {
				const status = faults.serverError?.status ?? 500;
				sendJson(res, entry, status, errorBody(status, 'Simulated server fault'));
				return;
			}
			if (firing.has('notJson')) {
				send(res, entry, 200, FAULT_HTML, { 'content-type': 'text/html; charset=utf-8' });
				return;
			}
			if (firing.has('emptyBody')) {
				send(res, entry, 200, '', { 'content-type': 'application/json; charset=utf-8' });
				return;
			}

			const { key, record } = authenticate(req);
			consumeRateLimit(key);
			checkOrganization(req, record);

			const route = matchRoute(pathname);
			if (!route) throw new HttpError(404, `Route ${method} ${pathname} not found`);
			const routeId = route.methods[method];
			if (!routeId) {
				throw new HttpError(405, `Method ${method} not allowed on ${pathname}`, {
					allow: Object.keys(route.methods).join(', '),
				});
			}
			const permission = ROUTE_PERMISSION[routeId];
			if (permission && !record.permissions.has(permission)) {
				throw new HttpError(403, `API key lacks permission ${permission}`);
			}
			if (body.tooLarge) throw new HttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`);

			const reply = handlers[routeId]({
				query,
				bodyText: body.text,
				organizationId: record.organizationId,
				route,
			});
			sendJson(res, entry, reply.status, reply.body);
		} catch (error) {
			if (error instanceof HttpError) {
				sendJson(
					res,
					entry,
					error.status,
					errorBody(error.status, error.err, error.extra),
					error.headers,
				);
			} else {
				// A bug in the sandbox or a throwing onRequest hook: answer, so the test fails visibly.
				const detail = error instanceof Error ? error.message : String(error);
				sendJson(res, entry, 500, errorBody(500, `Sandbox error: ${detail}`));
			}
		}
	}

	const server = createServer((req, res) => {
		// handle() answers its own errors; this is the last resort when even that fails (say a test
		// pushed a record JSON.stringify cannot serialise): cut the socket rather than crash jest.
		handle(req, res).catch(() => res.destroy());
	});

	let closed: Promise<void> | undefined;
	function close(): Promise<void> {
		closed ??= new Promise<void>((resolve) => {
			closing = true;
			for (const wake of [...pendingDelays]) wake();
			server.close(() => resolve());
			// close() alone waits for keep-alive and in-flight sockets; this ends them now.
			server.closeAllConnections();
		});
		return closed;
	}

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	sandbox.port = (server.address() as AddressInfo).port;
	sandbox.url = `http://127.0.0.1:${sandbox.port}`;
	return sandbox;
}
