import * as x509 from './x509';

/** Domain keys, CSRs and issued chains, through @peculiar/x509 (ASN.1 on WebCrypto) rather than hand-written DER. */
const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface DomainKey {
  keys: CryptoKeyPair;
  /** PKCS #8 PEM (`BEGIN PRIVATE KEY`), what edge servers load. */
  pem: string;
}

/** A fresh ECDSA P-256 key for one certificate: every certificate gets its own. */
export async function generateDomainKey(): Promise<DomainKey> {
  const keys = (await crypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = (await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer;
  return { keys, pem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** A PKCS #10 request for `domain` (CN and subjectAltName), DER. */
export async function certificateRequest(domain: string, key: DomainKey): Promise<ArrayBuffer> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: [{ CN: [domain] }],
      keys: key.keys,
      signingAlgorithm,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: domain }])],
    },
    crypto,
  );
  return csr.rawData;
}

export interface ChainParts {
  /** The leaf certificate, PEM. */
  cert: string;
  /** The intermediates after it, PEM (empty when the chain is the leaf alone). */
  ca: string;
  notBefore: number;
  notAfter: number;
}

/** Splits a PEM chain (leaf first, RFC 8555 §9.1) and reads the leaf's validity. */
export function parseChain(chainPem: string): ChainParts {
  const blocks = chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const [leafPem, ...rest] = blocks;
  if (!leafPem) throw new Error('The certificate chain holds no certificate.');
  const leaf = new x509.X509Certificate(leafPem);
  return {
    cert: `${leafPem}\n`,
    ca: rest.map((block) => `${block}\n`).join(''),
    notBefore: leaf.notBefore.getTime(),
    notAfter: leaf.notAfter.getTime(),
  };
}
