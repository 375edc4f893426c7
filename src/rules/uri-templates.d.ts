declare module 'uri-templates' {
  export type TemplateValues = Record<string, string | string[] | Record<string, string> | undefined>;

  export interface UriTemplate {
    /** Expands the template (RFC 6570). */
    fill(values: TemplateValues): string;
    /** The variables that expand to `uri`, or undefined when it does not match. */
    fromUri(uri: string): TemplateValues | undefined;
    /** The names of the template's variables, without their modifiers. */
    readonly varNames: string[];
  }

  export default function uriTemplate(template: string): UriTemplate;
}
