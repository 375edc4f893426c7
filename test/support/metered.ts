/**
 * Counts the platform calls code makes through its bindings: every R2, D1, Durable Object
 * and Queue operation that leaves the isolate. Preparing or binding a D1 statement is not a
 * call; running it (or a batch of them) is one.
 */
export class CallCounter {
  readonly calls: string[] = [];
  /** D1 statements run, each of a batch counted: what D1's serial throughput is spent on. */
  statements = 0;

  get total(): number {
    return this.calls.length;
  }

  byKind(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) counts[call] = (counts[call] ?? 0) + 1;
    return counts;
  }

  record(name: string): void {
    this.calls.push(name);
  }
}

type AnyFunction = (...args: unknown[]) => unknown;

const realStatements = new WeakMap<object, D1PreparedStatement>();

function meterStatement(statement: D1PreparedStatement, counter: CallCounter): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'bind') return (...args: unknown[]) => meterStatement((value as AnyFunction).apply(target, args) as D1PreparedStatement, counter);
      return (...args: unknown[]) => {
        counter.record(`D1.${String(property)}`);
        counter.statements += 1;
        return (value as AnyFunction).apply(target, args);
      };
    },
  });
  realStatements.set(proxy, statement);
  return proxy;
}

function meterD1(db: D1Database, counter: CallCounter): D1Database {
  return new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'prepare') return (query: string) => meterStatement(target.prepare(query), counter);
      if (property === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          counter.record('D1.batch');
          counter.statements += statements.length;
          return target.batch(statements.map((statement) => realStatements.get(statement) ?? statement));
        };
      }
      return (...args: unknown[]) => {
        counter.record(`D1.${String(property)}`);
        return (value as AnyFunction).apply(target, args);
      };
    },
  });
}

/** Wraps an object so each method call is counted as `label.method`; results matching `nested` are wrapped too. */
function meterMethods<T extends object>(object: T, label: string, counter: CallCounter, nested?: (result: unknown) => unknown): T {
  return new Proxy(object, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counter.record(`${label}.${String(property)}`);
        const result = (value as AnyFunction).apply(target, args);
        return nested ? nested(result) : result;
      };
    },
  });
}

function meterR2(bucket: R2Bucket, counter: CallCounter): R2Bucket {
  const wrapUpload = (result: unknown) =>
    result instanceof Promise
      ? result.then((upload: R2MultipartUpload) => meterMethods(upload, 'R2.multipart', counter))
      : meterMethods(result as R2MultipartUpload, 'R2.multipart', counter);
  return new Proxy(bucket, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counter.record(`R2.${String(property)}`);
        const result = (value as AnyFunction).apply(target, args);
        return property === 'createMultipartUpload' || property === 'resumeMultipartUpload' ? wrapUpload(result) : result;
      };
    },
  });
}

function meterNamespace(namespace: DurableObjectNamespace, counter: CallCounter): DurableObjectNamespace {
  return new Proxy(namespace, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'get') {
        return (...args: unknown[]) => {
          const stub = (value as AnyFunction).apply(target, args) as DurableObjectStub;
          return new Proxy(stub, {
            get(stubTarget, method) {
              const member = Reflect.get(stubTarget, method) as unknown;
              if (typeof member !== 'function') return member;
              return (...callArgs: unknown[]) => {
                counter.record(`DO.${String(method)}`);
                // RPC methods are remote callables: call them directly (`.apply` would be a remote method).
                return (member as AnyFunction)(...callArgs);
              };
            },
          });
        };
      }
      return (value as AnyFunction).bind(target);
    },
  });
}

/** A copy of `env` whose D1, R2, Durable Object and Queue bindings count their calls into `counter`. */
export function metered<E extends object>(env: E, counter: CallCounter): E {
  const copy: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, binding] of Object.entries(env)) {
    if (binding === null || typeof binding !== 'object') continue;
    if (name === 'DB') copy[name] = meterD1(binding as D1Database, counter);
    else if (name === 'FILES') copy[name] = meterR2(binding as R2Bucket, counter);
    else if (name === 'SITES' || name === 'EVENTS') copy[name] = meterNamespace(binding as DurableObjectNamespace, counter);
    else if (name === 'NOTIFICATIONS' || name === 'CERTIFICATES') copy[name] = meterMethods(binding as object, `Queue.${name}`, counter);
  }
  return copy as E;
}
