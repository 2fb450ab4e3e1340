import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Whether a failed request reached the API: 'no' when nothing was sent or nothing can have
 * arrived (refused, unresolvable), 'maybe' after a timeout, a dropped connection or an unusable
 * reply, 'yes' when the API took it (a 2xx that cannot be read). Kept in the error's context, so
 * that a decision on a failed change (was the customer created?) reads data, not wording.
 */
export type Reached = 'no' | 'maybe' | 'yes';

/**
 * What kind of failure an error is, for a workflow or a model to branch on rather than parse
 * words. The values are an interface: saved If nodes and agent prompts compare them.
 */
export type ErrorType =
	/** A value given to the node (or sent, refused with a 400) is wrong or missing. */
	| 'invalidInput'
	/** The business named does not exist in the organization. */
	| 'notFound'
	/** The credential's key or organization was refused (401, 403). */
	| 'authentication'
	/** The API's rate limit, past the node's retries. */
	| 'rateLimited'
	/** A Create that may or may not have added the customer. */
	| 'unknownOutcome'
	/** The API did not answer, or failed (5xx), on a read: the same call later may work. */
	| 'unavailable'
	/** The setup (Base URL, certificate, n8n's allowed hosts) stops every call until changed. */
	| 'configuration'
	/** The API answered in a shape the node cannot read. */
	| 'unexpectedReply';

export const ERROR_TYPES: readonly ErrorType[] = [
	'invalidInput',
	'notFound',
	'authentication',
	'rateLimited',
	'unknownOutcome',
	'unavailable',
	'configuration',
	'unexpectedReply',
];

type NodeError = NodeApiError | NodeOperationError;

/** Sets the error's kind (in its context, which n8n keeps with the execution) and returns it. */
export function typed<E extends NodeError>(error: E, type: ErrorType): E {
	error.context.errorType = type;
	return error;
}

/** The kind an HTTP error status gives, for a read; a write's 5xx is decided by its caller. */
export function typeOfStatus(status: number): ErrorType {
	if (status === 401 || status === 403) return 'authentication';
	if (status === 404) return 'notFound';
	if (status === 429) return 'rateLimited';
	if (status >= 500) return 'unavailable';
	return 'invalidInput';
}

/**
 * The kind of a failure without a usable reply: a write that may have reached the API has an
 * unknown outcome whatever the cause, which matters more to the caller than the cause's kind.
 */
export function typeOfFailure(reached: Reached, write: boolean, cause: ErrorType): ErrorType {
	return write && reached !== 'no' ? 'unknownOutcome' : cause;
}

/** The kind an error carries; one made by n8n or a library with none is taken as the input's. */
export function errorTypeOf(error: NodeError): ErrorType {
	const type = error.context.errorType;
	return ERROR_TYPES.includes(type as ErrorType) ? (type as ErrorType) : 'invalidInput';
}
