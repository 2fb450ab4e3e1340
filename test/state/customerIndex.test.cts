/**
 * What Find and Skip Existing count as the same customer, and how Skip Existing keeps two rows
 * with one key from both creating it.
 */
import {
	CustomerIndex,
	emailKey,
	nameKey,
	phoneKey,
	recordKey,
	samePhone,
} from '../../nodes/BusinessCrm/state/customerIndex';
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
		expect(phoneKey('+1 (555) 010-0199')).toBe('15550100199');
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

describe('one phone number in two formats', () => {
	const found = (stored: string, wanted: string) =>
		new CustomerIndex([{ id: 'cust_1', phone: stored }])
			.find('phone', phoneKey(wanted))
			.map((customer) => customer.id);

	/** [stored, typed, whether they are one number]: through the index, then as bare digits. */
	type Pairs = Array<[string, string, boolean]>;
	it.each<[string, Pairs, Pairs]>([
		[
			'phone numbers with and without a country code match',
			[
				['+1 202 555 0236', '(202) 555-0236', true],
				['(202) 555-0236', '+1 202 555 0236', true],
				['+44 20 7946 0958', '20 7946 0958', true],
			],
			[
				['12025550236', '2025550236', true],
				['2025550236', '12025550236', true],
			],
		],
		[
			// Every leading zero, not only the first: below 7 digits only the same digits match.
			'a trunk prefix 0 or an international prefix 00 is ignored',
			[
				['+44 20 7946 0958', '020 7946 0958', true],
				['0044 20 7946 0958', '+44 20 7946 0958', true],
				['020 7946 0958', '0044 20 7946 0958', true],
			],
			[
				['0123', '123', true],
				['00123', '123', true],
			],
		],
		[
			'numbers that end alike but differ before their last digits are different numbers',
			[
				['+1 202 555 0236', '+1 303 555 0236', false],
				['+1 202 555 0236', '+44 202 555 0236', false],
			],
			[['12025550236', '2035550236', false]],
		],
		[
			'a shorter number ends a longer one only with at least 7 digits; below that only the same digits match',
			[
				['+1 202 555 0236', '555 0236', true],
				['+1 202 555 0236', '55 0236', false],
				['123456', '0123456', true],
			],
			[
				['5550236', '2025550236', true],
				['550236', '2025550236', false],
				['550236', '550236', true],
			],
		],
	])('%s', (_title, listed, digits) => {
		for (const [stored, typed, same] of listed)
			expect(found(stored, typed)).toEqual(same ? ['cust_1'] : []);
		for (const [stored, typed, same] of digits) expect(samePhone(stored, typed)).toBe(same);
	});

	it('a number without its area code matches every number that ends with it (the price of the rule)', () => {
		const index = new CustomerIndex([
			{ id: 'cust_1', phone: '+1 202 555 0236' },
			{ id: 'cust_2', phone: '+1 303 555 0236' },
			{ id: 'cust_3', phone: '+1 303 555 0237' },
		]);
		expect(index.find('phone', phoneKey('555-0236')).map((c) => c.id)).toEqual([
			'cust_1',
			'cust_2',
		]);
	});

	it('a customer filed under two keys that both match is found once', () => {
		const index = new CustomerIndex([]);
		const created = { id: 'cust_9', phone: '+1 202 555 0236' };
		index.add(created, { phone: '(202) 555-0236' });
		expect(index.find('phone', phoneKey('202.555.0236'))).toEqual([created]);
		expect(index.find('phone', phoneKey('1 202 555 0236'))).toEqual([created]);
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
