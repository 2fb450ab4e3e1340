/** Names the characters a user cannot see in what they pasted, for messages. */

const NAMED_CHARACTERS: Record<number, string> = {
	0x09: 'a tab',
	0x0a: 'a line break',
	0x0d: 'a line break',
	0x20: 'a space',
	0xa0: 'a no-break space',
	0xad: 'a soft hyphen',
	0x200b: 'a zero-width space',
	0x200c: 'a zero-width non-joiner',
	0x200d: 'a zero-width joiner',
	0x2060: 'a word joiner',
	0xfeff: 'a byte order mark',
};

/** A character the eye does not see: a control or formatting character, or a space other than " ". */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}]/u;

/** "a zero-width space (U+200B)", "a control character (U+0085)", "the non-ASCII character "é" (U+00E9)". */
function characterName(character: string): string {
	const code = character.codePointAt(0) as number;
	const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
	const kind =
		NAMED_CHARACTERS[code] ??
		(/\p{Cc}/u.test(character)
			? 'a control character'
			: /\p{Cf}/u.test(character)
				? 'an invisible formatting character'
				: /\p{Z}/u.test(character)
					? 'an unusual space'
					: `the non-ASCII character "${character}"`);
	return `${kind} (${hex})`;
}

/**
 * The first character of `text` that `refused` picks, named, with its position counted in
 * characters from 1; undefined when there is none.
 */
export function refusedCharacter(
	text: string,
	refused: (character: string) => boolean,
): string | undefined {
	let position = 0;
	for (const character of text) {
		position++;
		if (refused(character)) return `${characterName(character)} at position ${position}`;
	}
	return undefined;
}
