// @peculiar/x509 resolves its ASN.1 parsers through tsyringe, which needs the Reflect metadata
// API; this polyfill must be evaluated before the library, so every import goes through here.
import '@abraham/reflection';

export * from '@peculiar/x509';
