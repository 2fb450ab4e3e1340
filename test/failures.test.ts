import { describeFailure } from '../nodes/BusinessCrm/shared/failures';

/** An error as axios raises it when a request's timeout passes. */
function timedOut(): Error {
	return Object.assign(new Error('timeout of 30000ms exceeded'), { code: 'ECONNABORTED' });
}

describe('A request that gets no answer in time', () => {
	// The business list search cannot be given a timeout by the user, so its words name the 30 s
	// it waits (test/business.test.ts waits them for real, outside mutation runs).
	it('in a list search, names the wait and does not point at Request Options', () => {
		expect(describeFailure(timedOut(), { timeoutMs: 30_000, hasRequestOptions: false })).toEqual({
			message: 'no answer within 30 s',
			description:
				'The Business CRM API did not answer within 30 s. Check that the API is up, then try again.',
			mayHaveReachedApi: true,
		});
	});

	it('in an operation, points at Request Options › Timeout', () => {
		expect(describeFailure(timedOut(), { timeoutMs: 2500, hasRequestOptions: true })).toEqual({
			message: 'no answer within 2.5 s',
			description:
				'The Business CRM API did not answer in time. Try again later, or raise the timeout under Request Options › Timeout.',
			mayHaveReachedApi: true,
		});
	});

	it('without a known timeout, says so', () => {
		expect(describeFailure(timedOut(), { hasRequestOptions: false })).toEqual({
			message: 'no answer in time',
			description:
				'The Business CRM API did not answer within the time allowed. Check that the API is up, then try again.',
			mayHaveReachedApi: true,
		});
	});
});
