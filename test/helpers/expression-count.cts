/**
 * Counts the expressions n8n evaluates while `work` runs, by who asked: the package's code or
 * n8n's own (its RoutingNode evaluates every parameter of every item before the operation runs).
 * Each evaluation costs a row time, most of a millisecond on n8n 2.41's isolated engine, so the
 * count is what a test can hold steady where a timing could not.
 */
import { Expression } from 'n8n-workflow';

export interface EvaluationCount {
	ours: number;
	n8n: number;
}

const OURS = /[/\\]nodes[/\\]BusinessCrm/;

export async function countEvaluations(work: () => Promise<unknown>): Promise<EvaluationCount> {
	const count: EvaluationCount = { ours: 0, n8n: 0 };
	const prototype = Expression.prototype as unknown as {
		renderExpression: (...args: unknown[]) => unknown;
	};
	const real = prototype.renderExpression;
	prototype.renderExpression = function (this: unknown, ...args: unknown[]) {
		if (OURS.test(new Error().stack ?? '')) count.ours++;
		else count.n8n++;
		return real.apply(this, args);
	};
	// Deep enough to reach the package's frame under n8n's parameter readers.
	const limit = Error.stackTraceLimit;
	Error.stackTraceLimit = 50;
	try {
		await work();
	} finally {
		prototype.renderExpression = real;
		Error.stackTraceLimit = limit;
	}
	return count;
}
