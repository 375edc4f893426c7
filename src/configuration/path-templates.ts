/** Whether a URI template has an expression: one without is a plain path, matched by exact key. */
export function isTemplated(source: string): boolean {
  return source.includes('{');
}
