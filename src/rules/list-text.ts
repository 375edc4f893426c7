/**
 * A list read from a path, kept as the text it was read from (`a/b/c`, or `t=a;t=b` with the
 * name before each item) and split only when the list is used: a match that fails, or whose
 * values no expansion reads, allocates nothing for it, however many items the path holds.
 */
export class ListText {
  readonly text: string;
  readonly separator: string;
  /** Characters before each item's value (`t=`). */
  readonly itemPrefix: number;
  #items?: string[];

  constructor(text: string, separator: string, itemPrefix = 0) {
    this.text = text;
    this.separator = separator;
    this.itemPrefix = itemPrefix;
  }

  get items(): string[] {
    this.#items ??= this.text.split(this.separator).map((item) => item.slice(this.itemPrefix));
    return this.#items;
  }

  /** The only item, or undefined when there are several. */
  get single(): string | undefined {
    return this.text.includes(this.separator) ? undefined : this.text.slice(this.itemPrefix);
  }
}

/**
 * A value with commas as `uri-templates` reads it, and as expansions have always written it
 * back: the list of its items (joined by raw commas again, never `%2C`).
 */
export function listed(value: string): string | ListText {
  return value.includes(',') ? new ListText(value, ',') : value;
}
