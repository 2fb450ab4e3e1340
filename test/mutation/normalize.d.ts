/** Types of normalize.js, for the tests that import it. */
export function normalized<T>(report: T): T;
export function normalizeFile(file?: string): void;
