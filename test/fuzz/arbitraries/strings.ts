import fc from 'fast-check';

/** Characters that parsers of names, paths and header parameters tend to get wrong. */
const awkward = [
  '"', '\\', '\r', '\n', '\r\n', '\t', ' ', ';', '=', ',', ':', '%', '%22', '%0D%0A', '%00', '%2F', '%5C', '%2e%2e', '%ff', '%C0%AF',
  '\0', '\u202e', '\u2066', '\u200b', '\ufeff', '\ud800', '\udfff', '\u00e9', 'e\u0301', '\u{1f600}', '/', '//', '..', '.', '~', '*', '?', '#',
];

/** A short name made of letters, digits and safe punctuation. */
export const plainName = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,11}(\.[a-z]{1,4})?$/);

/** A plausible relative file path: one to four plain segments. */
export const plainPath = fc.array(plainName, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));

/** A string of awkward characters mixed with plain ones, any Unicode, or a very long run. */
export const awkwardString = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom(...awkward), plainName), { minLength: 1, maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.constantFrom('a', '\u00e9', '/', '%41', '\\'), fc.integer({ min: 256, max: 5000 })).map(([unit, count]) => unit.repeat(count)),
);

/** A file name as a browser or a hostile client might send it. */
export const fileName = fc.oneof({ weight: 2, arbitrary: plainPath }, { weight: 3, arbitrary: awkwardString });
