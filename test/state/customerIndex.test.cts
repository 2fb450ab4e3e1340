/**
 * What Find and Skip Existing count as the same customer, and how Skip Existing keeps two rows
 * with one key from both creating it.
 */
import {
	CustomerIndex,
	emailKey,
	idKey,
	matchText,
	nameKey,
	phoneKey,
	phoneMatch,
	recordKey,
	type PhoneMatch,
} from '../../nodes/BusinessCrm/state/customerIndex';
import { cleanText, trimmedText } from '../../nodes/BusinessCrm/values';
import { ExecutionCustomers } from '../../nodes/BusinessCrm/state/executionCustomers';
import { KeyTurns } from '../../nodes/BusinessCrm/state/keyTurns';

describe('the same customer, to Find and Skip Existing', () => {
	it('an email in another case or with spaces around it is the same email', () => {
		expect(emailKey('  Ann.Lee@Example.COM ')).toBe(emailKey('ann.lee@example.com'));
	});

	it('"straße" and "strasse" are different emails (case is folded to lower, not upper, case)', () => {
		expect(emailKey('straße@example.com')).not.toBe(emailKey('STRASSE@example.com'));
		expect(nameKey('Jürgen', 'Strauß')).not.toBe(nameKey('Jürgen', 'Strauss'));
		expect(nameKey('Weiß', 'Lee')).not.toBe(nameKey('WEISS', 'Lee'));
		expect(nameKey('Ann', 'Lee')).toBe(nameKey(' ANN ', 'lee'));
	});

	it('a phone number given as a number is the same phone as the text with its digits', () => {
		expect(phoneKey(15550100199)).toBe('15550100199');
		expect(phoneKey('+1 (555) 010-0199')).toBe('+15550100199');
		expect(phoneMatch(phoneKey(15550100199), phoneKey('+1 (555) 010-0199'))).toBe('full');
		expect(recordKey({ phone: 15550100199 }, 'phone')).toBe('15550100199');
	});

	it('an email given as a number is kept as its digits, not dropped', () => {
		expect(emailKey(12345)).toBe('12345');
	});

	it('a name needs both parts: one of them alone matches nobody', () => {
		expect(nameKey('Ann', '')).toBe('');
		expect(nameKey('  ', 'Lee')).toBe('');
		expect(nameKey('Ann', 'Lee')).not.toBe('');
		const index = new CustomerIndex([
			{ id: 'cust_1', firstName: 'Ann' },
			{ id: 'cust_2', lastName: 'Lee' },
		]);
		expect(index.find('name', nameKey('Ann', ''))).toEqual([]);
		expect(index.find('name', nameKey('', 'Lee'))).toEqual([]);
	});

	it('a customer without an email, phone or name is found by none of them', () => {
		const index = new CustomerIndex([{ id: 'cust_1' }, { id: 'cust_2', email: '  ' }]);
		for (const kind of ['email', 'phone', 'name'] as const)
			expect(index.find(kind, '')).toEqual([]);
	});
});

describe('the same customer, to Find by ID', () => {
	it('an ID is the same only with the same capitals, cut at its ends as all text is, never inside', () => {
		const [lower, upper, pasted, numbered] = [
			{ id: 'cust_ab12' },
			{ id: 'cust_AB12' },
			{ id: ' cust_c3\u200b' },
			{ id: 42 },
		];
		const index = new CustomerIndex([lower, upper, pasted, numbered]);
		expect(index.find('id', idKey('\ufeffcust_ab12 '))).toEqual([lower]);
		expect(index.find('id', idKey('cust_AB12'))).toEqual([upper]);
		expect(index.find('id', idKey('CUST_ab12'))).toEqual([]);
		expect(index.find('id', idKey('cust_c3'))).toEqual([pasted]);
		expect(index.find('id', idKey('42'))).toEqual([numbered]);
		expect(index.find('id', idKey('cust_ ab12'))).toEqual([]);
		expect(index.find('id', idKey('cust_ab1'))).toEqual([]);
	});

	it('a customer without an ID is found by no ID, and Find by ID matches no email, phone or name', () => {
		const index = new CustomerIndex([{ email: 'cust_1' }, { id: '  ' }, { id: null }, { id: {} }]);
		expect(index.find('id', '')).toEqual([]);
		expect(index.find('id', idKey('cust_1'))).toEqual([]);
		expect(recordKey({ id: 'cust_1', email: 'a@example.com' }, 'id')).toBe('cust_1');
	});
});

describe('one phone number in two formats', () => {
	/** Who the index finds for `wanted` among one customer: in full or in part, and in full only. */
	const found = (stored: string, wanted: string) => {
		const index = new CustomerIndex([{ id: 'cust_1', phone: stored }]);
		const ids = (only?: 'full') => index.find('phone', phoneKey(wanted), only).map((c) => c.id);
		return [ids(), ids('full')];
	};
	const expected: Record<PhoneMatch, string[][]> = {
		full: [['cust_1'], ['cust_1']],
		partial: [['cust_1'], []],
		none: [[], []],
	};

	/** [stored, typed, how they match], through the index and pairwise, both ways round. */
	type Pairs = Array<[string, string, PhoneMatch]>;
	it.each<[string, Pairs]>([
		[
			'a number in national form is a full match for the number with its country code',
			[
				['+1 202 555 0236', '(202) 555-0236', 'full'],
				['+44 20 7946 0958', '20 7946 0958', 'full'],
				['+44 20 7946 0958', '020 7946 0958', 'full'],
				// A 3-digit country code (the UAE's), the trunk 0 of its national form dropped.
				['+971 50 123 4567', '050 123 4567', 'full'],
			],
		],
		[
			'a trunk prefix 0 and an international prefix 00 are read as such',
			[
				['0044 20 7946 0958', '+44 20 7946 0958', 'full'],
				['020 7946 0958', '0044 20 7946 0958', 'full'],
				['0123', '123', 'full'],
				['123456', '0123456', 'full'],
				['00123', '+123', 'full'],
			],
		],
		[
			'a number in national form with the digits of one in international form is that number (the + left out)',
			[
				['+1 202 555 0236', '12025550236', 'full'],
				['00123', '123', 'full'],
				// Not with a trunk 0: London's 020 7946 0958 is not Egypt's +20 7946 0958.
				['+20 7946 0958', '020 7946 0958', 'partial'],
			],
		],
		[
			'numbers that end alike but differ before their last digits are different numbers',
			[
				['+1 202 555 0236', '+1 303 555 0236', 'none'],
				['+1 202 555 0236', '+44 202 555 0236', 'none'],
				['12025550236', '2035550236', 'none'],
			],
		],
		[
			'a number missing its area code is a partial match, and only with at least 7 digits',
			[
				['+1 202 555 0236', '555 0236', 'partial'],
				['+1 202 555 0236', '55 0236', 'none'],
				['12025550236', '2025550236', 'partial'],
				['5550236', '2025550236', 'partial'],
				['550236', '2025550236', 'none'],
				['550236', '550236', 'full'],
				// A country code taken off needs 7 digits left: below that, not the same number.
				['+44 123 456', '123 456', 'none'],
			],
		],
	])('%s', (_title, pairs) => {
		for (const [stored, typed, match] of pairs) {
			expect([stored, typed, found(stored, typed)]).toEqual([stored, typed, expected[match]]);
			expect([typed, stored, found(typed, stored)]).toEqual([typed, stored, expected[match]]);
			expect(phoneMatch(phoneKey(stored), phoneKey(typed))).toBe(match);
		}
	});

	it('a number without its area code finds every number that ends with it, never in full', () => {
		const index = new CustomerIndex([
			{ id: 'cust_1', phone: '+1 202 555 0236' },
			{ id: 'cust_2', phone: '+1 303 555 0236' },
			{ id: 'cust_3', phone: '+1 303 555 0237' },
		]);
		expect(index.find('phone', phoneKey('555-0236')).map((c) => c.id)).toEqual([
			'cust_1',
			'cust_2',
		]);
		expect(index.find('phone', phoneKey('555-0236'), 'full')).toEqual([]);
	});

	it('a customer filed under two keys that both match is found once', () => {
		const index = new CustomerIndex([]);
		const created = { id: 'cust_9', phone: '+1 202 555 0236' };
		index.add(created, { phone: '(202) 555-0236' });
		expect(index.find('phone', phoneKey('202.555.0236'))).toEqual([created]);
		expect(index.find('phone', phoneKey('1 202 555 0236'))).toEqual([created]);
	});
});

describe('issue 57: different phone numbers never become one customer', () => {
	it('digits in Arabic-Indic, Persian and Devanagari count as their values, not as nothing', () => {
		// "+971 50 123 4567" in Arabic-Indic digits: it had the key "971" beside every such number.
		const arabic = '+٩٧١ ٥٠ ١٢٣ ٤٥٦٧';
		expect(phoneKey(arabic)).toBe('+971501234567');
		const other = '+٩٧١ ٥٥ ٩٨٧ ٦٥٤٣';
		expect(phoneMatch(phoneKey(arabic), phoneKey(other))).toBe('none');
		// Persian (Extended Arabic-Indic) digits for 0912 345 6789, Devanagari for 98765 43210.
		expect(phoneKey('۰۹۱۲ ۳۴۵ ۶۷۸۹')).toBe('09123456789');
		expect(phoneKey('९८७६५ ४३२१०')).toBe('9876543210');
		const index = new CustomerIndex([
			{ id: 'cust_1', phone: '+971 50 123 4567' },
			{ id: 'cust_2', phone: '+971 55 987 6543' },
		]);
		expect(index.find('phone', phoneKey(arabic), 'full').map((c) => c.id)).toEqual(['cust_1']);
		expect(index.find('phone', phoneKey(other)).map((c) => c.id)).toEqual(['cust_2']);
	});

	it('a digit of every script Unicode has counts as its value', () => {
		const zeros = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10, 0x1d7ce, 0x1d7d8, 0x1d7f6];
		for (const zero of zeros) {
			const digits = Array.from({ length: 10 }, (_, value) => String.fromCodePoint(zero + value));
			expect([zero, phoneKey(digits.join(''))]).toEqual([zero, '0123456789']);
		}
	});

	it('letters count: 1-800-FLOWERS is not 1-800-CONTACTS, nor its digits', () => {
		expect(phoneKey('1-800-FLOWERS')).toBe('1800flowers');
		expect(phoneMatch(phoneKey('1-800-FLOWERS'), phoneKey('1-800-CONTACTS'))).toBe('none');
		expect(phoneMatch(phoneKey('1-800-FLOWERS'), phoneKey('1-800-356-9377'))).toBe('none');
		expect(phoneMatch(phoneKey('1-800-flowers'), phoneKey('+1 800 FLOWERS'))).toBe('full');
		const index = new CustomerIndex([{ id: 'cust_1', phone: '1-800-FLOWERS' }]);
		expect(index.find('phone', phoneKey('1-800-CONTACTS'))).toEqual([]);
	});

	it('a number with an extension is not the number without it, nor the extension written otherwise', () => {
		const plain = phoneKey('+1 202 555 0236');
		expect(phoneMatch(phoneKey('+1 202 555 0236 x12'), plain)).toBe('none');
		expect(phoneMatch(phoneKey('+1 202 555 0236 ext. 12'), phoneKey('+1 202 555 0236 x12'))).toBe(
			'none',
		);
		expect(phoneMatch(phoneKey('(202) 555-0236 x12'), phoneKey('+1 202 555 0236 x12'))).toBe(
			'full',
		);
	});
});

describe('a customer a Create has just added', () => {
	it('is found by the key that was sent, even when the API echoes it otherwise', () => {
		const index = new CustomerIndex([]);
		const created = { id: 'cust_9', email: 'ann@other.example' };
		index.add(created, { email: 'ann@example.com' });
		expect(index.find('email', 'ann@example.com')).toEqual([created]);
		expect(index.find('email', 'ann@other.example')).toEqual([created]);
	});

	it('is found once when the key sent is the key it came back with', () => {
		const index = new CustomerIndex([]);
		const created = { id: 'cust_9', email: 'Ann@Example.com' };
		index.add(created, { email: 'ann@example.com' });
		expect(index.find('email', 'ann@example.com')).toEqual([created]);
	});
});

/** A task that runs until `finish` is called, recording how many ran at once. */
function gate() {
	const log = { running: 0, most: 0, started: [] as string[] };
	const task = (name: string) => {
		let finish = () => {};
		const done = new Promise<void>((resolve) => (finish = resolve));
		const run = async () => {
			log.started.push(name);
			log.running++;
			log.most = Math.max(log.most, log.running);
			await done;
			log.running--;
			return name;
		};
		return { run, finish: () => finish() };
	};
	return { log, task };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('rows with one key create one at a time; rows with different keys do not wait', () => {
	it('a row with another key starts while the first is still creating', async () => {
		const turns = new KeyTurns();
		const { log, task } = gate();
		const a = task('a');
		const b = task('b');
		const first = turns.oneAtATime('email', 'a@example.com', a.run);
		const second = turns.oneAtATime('email', 'b@example.com', b.run);
		await tick();
		expect(log.started).toEqual(['a', 'b']);
		a.finish();
		b.finish();
		await expect(Promise.all([first, second])).resolves.toEqual(['a', 'b']);
	});

	it('a third row with the key waits for the second, even after the first has ended', async () => {
		const turns = new KeyTurns();
		const { log, task } = gate();
		const [a, b, c] = [task('a'), task('b'), task('c')];
		const first = turns.oneAtATime('email', 'x@example.com', a.run);
		const second = turns.oneAtATime('email', 'x@example.com', b.run);
		await tick();
		a.finish();
		await first;
		await tick();
		expect(log.started).toEqual(['a', 'b']);
		const third = turns.oneAtATime('email', 'x@example.com', c.run);
		await tick();
		expect(log.started).toEqual(['a', 'b']);
		b.finish();
		await second;
		await tick();
		expect(log.started).toEqual(['a', 'b', 'c']);
		c.finish();
		await expect(third).resolves.toBe('c');
		expect(log.most).toBe(1);
	});

	it('two rows with one phone number in two formats create one at a time', async () => {
		const turns = new KeyTurns();
		const { log, task } = gate();
		const [a, b] = [task('a'), task('b')];
		const first = turns.oneAtATime('phone', phoneKey('+1 202 555 0236'), a.run);
		const second = turns.oneAtATime('phone', phoneKey('(202) 555-0236'), b.run);
		await tick();
		expect(log.started).toEqual(['a']);
		a.finish();
		await first;
		await tick();
		expect(log.started).toEqual(['a', 'b']);
		b.finish();
		await expect(second).resolves.toBe('b');
		expect(log.most).toBe(1);
	});

	it('a row whose Create failed does not stop the next row with the key', async () => {
		const turns = new KeyTurns();
		const failed = turns.oneAtATime('phone', '1555', async () => {
			throw new Error('refused');
		});
		await expect(failed).rejects.toThrow('refused');
		await expect(turns.oneAtATime('phone', '1555', async () => 'next')).resolves.toBe('next');
	});
});

describe('what an execution remembers of its Creates', () => {
	it('a customer it created is in the business it was sent to, whatever the reply says', () => {
		const run = new ExecutionCustomers();
		const created = { id: 'cust_1', email: 'a@example.com', businessId: 'biz_other' };
		run.addCreated(created, { email: 'a@example.com' }, 'biz_sent');
		expect(run.businessOf(created)).toBe('biz_sent');
		expect(run.created.find('email', 'a@example.com')).toEqual([created]);
	});

	it("a listed customer is in its record's business, trimmed; without one, in none", () => {
		const run = new ExecutionCustomers();
		expect(run.businessOf({ businessId: ' biz_1 ' })).toBe('biz_1');
		expect(run.businessOf({ businessId: 42 })).toBe('42');
		expect(run.businessOf({})).toBe('');
		expect(run.businessOf({ businessId: { id: 'biz_1' } })).toBe('');
	});

	it('a Create that may have happened blocks its key in its business, or in any when asked', () => {
		const run = new ExecutionCustomers();
		expect(run.uncertainCreate('email', 'a@example.com')).toBeUndefined();
		const at = (itemIndex: number, businessId: string) => ({
			nodeName: 'Create',
			run: {},
			itemIndex,
			businessId,
		});
		run.addUncertain({ email: 'a@example.com' }, at(3, 'biz_1'));
		run.addUncertain({ email: 'a@example.com' }, at(5, 'biz_2'));
		expect(run.uncertainCreate('email', 'a@example.com', 'biz_2')).toMatchObject({
			itemIndex: 5,
			businessId: 'biz_2',
		});
		expect(run.uncertainCreate('email', 'a@example.com')).toMatchObject({
			itemIndex: 3,
			businessId: 'biz_1',
		});
		expect(run.uncertainCreate('email', 'a@example.com', 'biz_3')).toBeUndefined();
		expect(run.uncertainCreate('phone', 'a@example.com')).toBeUndefined();
		expect(run.uncertainCreate('email', 'b@example.com')).toBeUndefined();
	});
});

describe('what an execution remembers of a Create, by every key it was sent with', () => {
	const origin = { nodeName: 'Create', run: {}, itemIndex: 0, businessId: 'biz_1' };
	const sent = {
		firstName: 'Ada',
		lastName: 'Lovelace',
		email: 'Ada@Example.com',
		phone: '+44 20 7946 0958',
	};

	it('a Create that may have happened is found by its email, its phone and its name', () => {
		const run = new ExecutionCustomers();
		run.addUncertain(sent, origin);
		expect(run.uncertainCreate('email', 'ada@example.com')).toBe(origin);
		expect(run.uncertainCreate('phone', phoneKey('020 7946 0958'))).toBe(origin);
		expect(run.uncertainCreate('name', nameKey('ada', 'LOVELACE'))).toBe(origin);
		expect(run.uncertainCreate('name', nameKey('Ada', 'Byron'))).toBeUndefined();
	});

	it('a phone that matches the Create only in part is taken for another customer, and is not blocked', () => {
		const run = new ExecutionCustomers();
		run.addUncertain(sent, origin);
		expect(run.uncertainCreate('phone', phoneKey('7946 0958'))).toBeUndefined();
		expect(run.uncertainCreate('phone', phoneKey('+1 20 7946 0958'))).toBeUndefined();
		expect(run.uncertainCreate('phone', phoneKey('0044 20 7946 0958'))).toBe(origin);
	});

	it('a Create sent without an email is not found by an empty email', () => {
		const run = new ExecutionCustomers();
		run.addUncertain({ firstName: 'Ada', lastName: 'Lovelace' }, origin);
		expect(run.uncertainCreate('email', '')).toBeUndefined();
		expect(run.uncertainCreate('phone', '')).toBeUndefined();
	});

	it('a created customer is found by every key sent, and only after the mark it was created past', () => {
		const run = new ExecutionCustomers();
		const before = run.mark;
		const first = { id: 'cust_1' };
		run.addCreated(first, sent, 'biz_1');
		const between = run.mark;
		const second = { id: 'cust_2', email: 'grace@example.com' };
		run.addCreated(second, { email: 'grace@example.com' }, 'biz_1');
		expect(run.created.find('phone', phoneKey('+44 20 7946 0958'))).toEqual([first]);
		expect(run.created.find('name', nameKey('Ada', 'Lovelace'))).toEqual([first]);
		expect(run.createdSince(before, 'email', 'ada@example.com')).toEqual([first]);
		expect(run.createdSince(between, 'email', 'ada@example.com')).toEqual([]);
		expect(run.createdSince(between, 'email', 'grace@example.com')).toEqual([second]);
		expect(run.mark).toBe(between + 1);
	});
});

/** [what it is, the character]: each is cut at either end of a value, and kept inside. */
const UNSEEN_AT_THE_ENDS: Array<[string, string]> = [
	['a space', ' '],
	['a tab', '\t'],
	['a line break', '\n'],
	['a no-break space (U+00A0)', '\u00a0'],
	['an ideographic space (U+3000)', '\u3000'],
	['a zero-width space (U+200B)', '\u200b'],
	['a zero-width non-joiner (U+200C)', '\u200c'],
	['a zero-width joiner (U+200D)', '\u200d'],
	['a word joiner (U+2060)', '\u2060'],
	['a byte order mark (U+FEFF)', '\ufeff'],
	['a soft hyphen (U+00AD)', '\u00ad'],
	['a left-to-right mark (U+200E)', '\u200e'],
	['a right-to-left mark (U+200F)', '\u200f'],
	['an Arabic letter mark (U+061C)', '\u061c'],
	['a Mongolian vowel separator (U+180E)', '\u180e'],
	['an invisible times (U+2062)', '\u2062'],
	['a combining grapheme joiner (U+034F)', '\u034f'],
	['a Hangul filler (U+3164)', '\u3164'],
	['a halfwidth Hangul filler (U+FFA0)', '\uffa0'],
	['a format character outside the BMP (U+1D173)', '\u{1d173}'],
	['a zero-width space and a byte order mark together', '\u200b\ufeff'],
];

describe('one rule for the same text: what the node sends and what Find and Skip Existing compare', () => {
	const email = 'ann.lee@example.com';

	describe.each(UNSEEN_AT_THE_ENDS)('%s', (_name, unseen) => {
		it.each([
			['at the start', `${unseen}${email}`],
			['at the end', `${email}${unseen}`],
			['at both ends', `${unseen}${email}${unseen}`],
		])('%s is cut from what is sent and from the keys', (_where, typed) => {
			expect(cleanText(typed)).toBe(email);
			expect(trimmedText(typed)).toBe(email);
			expect(emailKey(typed)).toBe(emailKey(email));
			expect(nameKey(typed, `Lee${unseen}`)).toBe(nameKey(email, 'Lee'));
			expect(phoneKey(`+1 555 010 0199${unseen}`)).toBe('+15550100199');
		});

		it('inside a value is kept, in what is sent and in the keys', () => {
			const inside = `ann${unseen}lee@example.com`;
			expect(cleanText(inside)).toBe(inside);
			expect(emailKey(inside)).not.toBe(emailKey('annlee@example.com'));
		});
	});

	it('a value of nothing but unseen characters is empty: no key, nothing sent', () => {
		const all = UNSEEN_AT_THE_ENDS.map(([, unseen]) => unseen).join('');
		expect(cleanText(all)).toBe('');
		expect(emailKey(all)).toBe('');
		expect(nameKey(all, 'Lee')).toBe('');
		expect(new CustomerIndex([{ id: 'cust_1', email: all }]).find('email', emailKey(all))).toEqual(
			[],
		);
	});

	it.each([
		['an Arabic number sign before digits (U+0600, shown)', '\u0600\u0661\u0662'],
		[
			'the tags that end a flag emoji (Scotland)',
			'Go \u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
		],
		['an emoji presentation selector (U+FE0F)', 'Love \u2764\ufe0f'],
		// Old-style Malayalam chillu: consonant, virama, zero-width joiner at the end of a name.
		['a zero-width joiner after a virama (old-style Malayalam chillu)', '\u0d05\u0d30\u0d4d\u200d'],
		['a zero-width non-joiner after a virama', '\u0915\u094d\u200c'],
	])('%s at an end is part of the text, and is kept', (_name, text) => {
		expect(cleanText(text)).toBe(text);
		expect(cleanText(` ${text}\u200b`)).toBe(text);
	});

	it('a zero-width joiner or non-joiner inside a Persian or Indic name is kept', () => {
		// Zein-ol-Abedin, with a zero-width non-joiner after the first word.
		const persian = '\u0632\u06cc\u0646\u200c\u0627\u0644\u0639\u0627\u0628\u062f\u06cc\u0646';
		const devanagari = '\u0915\u094d\u200d\u0937';
		for (const name of [persian, devanagari]) {
			expect(cleanText(`\u200b${name}\ufeff`)).toBe(name);
			expect(nameKey(name, 'X')).not.toBe(nameKey(name.replace(/[\u200c\u200d]/g, ''), 'X'));
		}
	});

	it.each([
		['José', 'Jose\u0301'],
		['Zoë Ørsted', 'Zoe\u0308 \u00d8rsted'],
		['Nguyễn', 'Nguye\u0302\u0303n'],
		['Çelik', 'C\u0327elik'],
	])('%s in NFC and in NFD (as macOS exports it) is one name, and is sent in NFC', (nfc, nfd) => {
		expect(nfc.normalize('NFC')).toBe(nfc);
		expect(nfd).not.toBe(nfc);
		expect(cleanText(nfd)).toBe(nfc);
		expect(nameKey(nfd, nfd)).toBe(nameKey(nfc, nfc));
		expect(emailKey(`${nfd}@example.com`)).toBe(emailKey(`${nfc}@example.com`));
		const index = new CustomerIndex([{ id: 'cust_1', firstName: nfc, lastName: 'Lee' }]);
		expect(index.find('name', nameKey(`${nfd} `, 'LEE')).map((c) => c.id)).toEqual(['cust_1']);
	});

	it.each([
		['two spaces', 'Mary  Ann'],
		['a tab', 'Mary\tAnn'],
		['a no-break space', 'Mary\u00a0Ann'],
		['spaces and a line break', 'Mary \n Ann'],
	])('a name with %s inside matches it with one space; what is sent keeps it', (_name, typed) => {
		expect(matchText(typed)).toBe('mary ann');
		expect(nameKey(typed, 'Lovelace')).toBe(nameKey('Mary Ann', 'Lovelace'));
		expect(cleanText(` ${typed} `)).toBe(typed);
	});

	it('inner spaces do not join the two names: "Ann Lee" + "Smith" is not "Ann" + "Lee Smith"', () => {
		expect(nameKey('Ann  Lee', 'Smith')).not.toBe(nameKey('Ann', 'Lee  Smith'));
	});

	it.each([
		['ANN.LEE@EXAMPLE.COM', 'ann.lee@example.com'],
		['ÉLODIE', 'élodie'],
		['E\u0301LODIE', '\u00e9lodie'],
		['ΣΩΚΡΆΤΗΣ', 'σωκράτης'],
	])('capitals do not count: %s is %s', (upper, lower) => {
		expect(matchText(upper)).toBe(matchText(lower));
	});

	it.each([
		['+1 (555) 010-0199', '+15550100199'],
		['1-555-010-0199', '15550100199'],
		['\u200b+1 555 010 0199\ufeff', '+15550100199'],
		['\u00a0+1\u00a0555\u00a0010\u00a00199', '+15550100199'],
		// Invisible characters inside count for nothing either.
		['+1 555\u200b010\u2060 0199', '+15550100199'],
		// Full-width digits, as Japanese and Chinese input gives them.
		[
			'\uff0b\uff11 \uff08\uff15\uff15\uff15\uff09 \uff10\uff11\uff10-\uff10\uff11\uff19\uff19',
			'+15550100199',
		],
		['tel. +44 20 7946 0958', 'tel+442079460958'],
		['0044 (0)20 7946-0958', '+4402079460958'],
		['n/a', ''],
		['ext.', ''],
	])('the phone %j is read as %j', (typed, digits) => {
		expect(phoneKey(typed)).toBe(digits);
	});

	it('full-width digits find the number stored in ASCII digits, with its country code', () => {
		const index = new CustomerIndex([{ id: 'cust_1', phone: '+44 20 7946 0958' }]);
		const typed = '\uff10\uff12\uff10 \uff17\uff19\uff14\uff16 \uff10\uff19\uff15\uff18';
		expect(index.find('phone', phoneKey(typed)).map((c) => c.id)).toEqual(['cust_1']);
	});

	it('a customer stored with a hidden character is found by the clean value, and the other way round', () => {
		const index = new CustomerIndex([
			{ id: 'cust_1', email: 'ann@example.com\u200b', firstName: '\ufeffAnn', lastName: 'Lee' },
			{ id: 'cust_2', email: 'bob@example.com' },
		]);
		expect(index.find('email', emailKey('ANN@example.com')).map((c) => c.id)).toEqual(['cust_1']);
		expect(index.find('email', emailKey('bob@example.com\u2060')).map((c) => c.id)).toEqual([
			'cust_2',
		]);
		expect(index.find('name', nameKey('ann', 'lee\u00ad')).map((c) => c.id)).toEqual(['cust_1']);
	});

	it('cleaning twice changes nothing, and gives NFC', () => {
		const typed = [
			...UNSEEN_AT_THE_ENDS.map(([, unseen]) => `${unseen}Jose\u0301${unseen}`),
			'\u034f\u200dAnn',
			'\u0d05\u0d30\u0d4d\u200d\u200b',
		];
		for (const text of typed) {
			const once = cleanText(text);
			expect(cleanText(once)).toBe(once);
			expect(once.normalize('NFC')).toBe(once);
		}
	});

	it('a value with a long run of spaces inside is cleaned in linear time', () => {
		const long = `a${' '.repeat(500_000)}b `;
		expect(cleanText(long)).toBe(long.slice(0, -1));
		expect(matchText(long)).toBe('a b');
	});
});
