import { startRelayServer } from './relay-server.ts';

/**
 * A TCP relay in front of a port that fails the first request of each kind, once, as a flaky
 * network or a proxy would, then passes everything through. A kind is a request's method and
 * path, with deployment ids read as one (`POST /v2/sites/a.example/deployments/<id>/finalize`).
 * The first of a kind is reset before it reaches the service, or as `failFirst` says: reset once
 * the service has answered it (done, but its answer lost), or passed.
 */
export interface ResettingRelay {
  origin: string;
  /** Each kind in the order it was first seen since the relay was armed. */
  failedKinds(): string[];
  /** Starts failing (a relay started `disarmed` passes everything until then). */
  arm(): void;
  close(): Promise<void>;
}

export type Failure = 'reset' | 'lose-answer' | 'pass';

export interface ResettingRelayOptions {
  /** What becomes of the first request of a kind: reset by default. */
  failFirst?: (kind: string) => Failure;
  /** Answers name this version of the service (`Sitehost-Version`) instead of its own. */
  serviceVersion?: string;
  /** Passes everything until `arm()`. */
  disarmed?: true;
}

const requestLine = /(?:^|\r\n)((?:GET|HEAD|POST|PUT|PATCH|DELETE) (\S+) HTTP\/1\.1)\r\n/;

function kindOf(method: string, target: string): string {
  const path = new URL(target, 'http://relay.invalid').pathname.replace(/\/deployments\/[a-z2-7]{20,}/, '/deployments/<id>');
  return `${method} ${path}`;
}

export function startResettingRelay(targetPort: number, options: ResettingRelayOptions = {}): Promise<ResettingRelay> {
  const seen: string[] = [];
  let armed = options.disarmed !== true;
  const listening = startRelayServer(targetPort, (client, upstream) => {
    const fail = () => {
      client.resetAndDestroy();
      upstream.destroy();
    };
    let loseNextAnswer = false;
    client.on('data', (chunk: Buffer) => {
      // Bodies here are files of text, which never hold a request line.
      const line = requestLine.exec(chunk.toString('latin1'));
      const kind = line && kindOf(line[1]!.split(' ')[0]!, line[2]!);
      if (kind && armed && !seen.includes(kind)) {
        seen.push(kind);
        const failure = options.failFirst?.(kind) ?? 'reset';
        if (failure === 'reset') return fail();
        loseNextAnswer = failure === 'lose-answer';
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (loseNextAnswer) return fail();
      const text = chunk.toString('latin1');
      if (options.serviceVersion === undefined || !/^HTTP\/1\.1 /.test(text)) return void client.write(chunk);
      client.write(Buffer.from(text.replace(/^(sitehost-version:)[^\r]*/im, `$1 ${options.serviceVersion}`), 'latin1'));
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return listening.then((server) => ({
    ...server,
    failedKinds: () => [...seen],
    arm: () => {
      armed = true;
    },
  }));
}
