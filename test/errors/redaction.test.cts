/** Which secrets are cut out of messages (errors/redaction.ts), and in which of their encodings. */
import { redact, secretPattern } from '../../nodes/BusinessCrm/errors/redaction';

describe('secrets are redacted from 4 characters on, in every encoding', () => {
	// Literal lengths: MIN_SECRET_LENGTH is a module constant, which mutation testing leaves alone.
	it.each([
		['abcd abc', 'abcd', '[redacted] abc'],
		['the key abcd was refused', 'abcd', 'the key [redacted] was refused'],
		['abc', 'abc', 'abc'],
		['the key abc was refused', 'abc', 'the key abc was refused'],
	])('in %j, the secret %j leaves %j', (text, secret, shown) => {
		expect(redact(text, [secret])).toBe(shown);
	});

	it('every encoded form of each character is redacted', () => {
		const secret = `a"&<>'/\\ b`;
		const forms = [
			'a&quot;&amp;&lt;&gt;&apos;/\\ b',
			'a&#34;&#38;&#60;&#62;&#39;&#47;&#92;&#32;b',
			'a&#x22;&#X26;&#x3c;&#x3E;&#x27;&#x2f;&#x5C;&#x20;b',
			'a%22%26%3C%3E%27%2F%5C%20b',
			'a%22%26%3c%3e%27%2f%5c+b',
			'a%2522%2526%253C%253E%2527%252F%255C%2520b',
			'a\\"&<>\'\\/\\\\ b',
			'\\u0061\\u0022\\u0026\\u003c\\u003E\\u0027\\u002f\\u005C\\u0020\\u0062',
		];
		for (const form of forms) expect(redact(`[${form}]`, [secret])).toBe('[[redacted]]');
	});

	it('a secret holding regular-expression characters is matched as written', () => {
		const secret = '.*+?^${}()|[]-';
		expect(redact(`x${secret}x`, [secret])).toBe('x[redacted]x');
		expect(redact('x..............x', [secret])).toBe('x..............x');
	});

	it('the longer of two overlapping secrets is cut out whole', () => {
		expect(redact('pass-word-long', ['pass', 'pass-word-long'])).toBe('[redacted]');
	});
});

describe('the patterns kept for the secrets of many credentials', () => {
	it('each list of secrets is matched by its own pattern, before and after many others', () => {
		const keys = Array.from({ length: 40 }, (_, n) => `key-number-${n}`);
		for (const key of keys) expect(redact(`a ${key} b`, [key])).toBe('a [redacted] b');
		// The same secrets in a new list (each item reads its credential again): still matched,
		// and another list's pattern is not taken for them.
		expect(redact(`${keys[0]} ${keys[39]}`, [`${keys[0]}`])).toBe(`[redacted] ${keys[39]}`);
		expect(redact(`${keys[0]} ${keys[39]}`, [keys[39], keys[0]])).toBe('[redacted] [redacted]');
		expect(redact('key-number-1', ['key-number-10'])).toBe('key-number-1');
	});
});

describe("the secrets' pattern is built once per credential, and the kept patterns stay few", () => {
	const list = (n: number) => [`secret-key-${n}`, `org-${n}-abcd`];

	it('a new list of the same secrets (each item reads its credential again) gets the pattern built for the first', () => {
		const first = secretPattern(list(1));
		secretPattern(list(2));
		expect(secretPattern(list(1))).toBe(first);
	});

	it('after many other credentials, a pattern is built again: the patterns kept are bounded', () => {
		const first = secretPattern(list(100));
		for (let n = 101; n < 140; n++) secretPattern(list(n));
		const again = secretPattern(list(100));
		expect(again).not.toBe(first);
		expect(again?.source).toBe(first?.source);
	});
});
