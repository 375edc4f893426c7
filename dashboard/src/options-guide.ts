import { getLocation } from 'jsonc-parser';
import schema from '../../schema/host.schema.json';
import { h } from './dom';

/** The parts of a JSON Schema the guide reads: descriptions, and where a member's schema lies. */
interface SchemaNode {
  $ref?: string;
  title?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}

const root = schema as unknown as SchemaNode & { $defs: Record<string, SchemaNode> };

/** The node itself, and through `$ref`, `oneOf` and `anyOf` every schema it may be. */
function alternatives(node: SchemaNode): SchemaNode[] {
  const target = node.$ref ? root.$defs[node.$ref.replace('#/$defs/', '')] : undefined;
  return [node, ...(target ? alternatives(target) : []), ...[...(node.oneOf ?? []), ...(node.anyOf ?? [])].flatMap(alternatives)];
}

/** The schemas of the member `segment` (a name, or an array index) of a value that `node` describes. */
function memberOf(node: SchemaNode, segment: string | number): SchemaNode[] {
  return alternatives(node).flatMap((shape) => {
    if (typeof segment === 'number') return shape.items ? [shape.items] : [];
    const named = shape.properties?.[segment];
    if (named) return [named];
    const patterned = Object.entries(shape.patternProperties ?? {}).find(([pattern]) => new RegExp(pattern, 'u').test(segment));
    if (patterned) return [patterned[1]];
    return typeof shape.additionalProperties === 'object' ? [shape.additionalProperties] : [];
  });
}

/** The description of what `path` names in host options, or undefined where the schema has none (a name it does not know). */
export function describePath(path: readonly (string | number)[]): string | undefined {
  let nodes: SchemaNode[] = [root];
  for (const segment of path) {
    nodes = nodes.flatMap((node) => memberOf(node, segment));
    if (nodes.length === 0) return undefined;
  }
  return descriptionOf(...nodes);
}

/** The first description of these schemas, or of what they refer to. */
function descriptionOf(...nodes: SchemaNode[]): string | undefined {
  return nodes.flatMap(alternatives).find((node) => node.description)?.description;
}

/** The members the schema names for an option's value, or its items' (`redirects`: from, to, status). */
function membersOf(option: SchemaNode): [string, SchemaNode][] {
  const shapes = alternatives(option).flatMap((shape) => [shape, ...(shape.items ? alternatives(shape.items) : [])]);
  return [...new Map(shapes.flatMap((shape) => Object.entries(shape.properties ?? {}))).entries()];
}

/** Every option of schema/host.schema.json with its description, and the members each takes: what the editor accepts. */
export function optionsGuide(): HTMLElement {
  return h(
    'dl',
    { id: 'options-guide', class: 'guide' },
    Object.entries(root.properties ?? {}).flatMap(([name, option]) => {
      const members = membersOf(option);
      return [
        h('dt', {}, h('code', {}, name)),
        h(
          'dd',
          {},
          descriptionOf(option) ?? '',
          members.length > 0 && h('ul', {}, members.map(([member, node]) => h('li', {}, h('code', {}, member), ` ${descriptionOf(node) ?? ''}`))),
        ),
      ];
    }),
  );
}

/** What the text at `offset` is in host options: its path, as `a.b[0]`, and its description; the top level has none. */
export function describeAt(text: string, offset: number): { path: string; description: string | undefined } | undefined {
  const { path } = getLocation(text, offset);
  if (path.length === 0 || path.at(-1) === '') return undefined;
  const written = path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
  return { path: written, description: describePath(path) };
}
