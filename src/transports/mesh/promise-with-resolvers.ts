/**
 * `Promise.withResolvers` for Node 20: the libp2p 3 stack calls it, and Node has it only from
 * 22. Imported before any libp2p module (docs/decisions/mesh.md MESH-1).
 */
interface WithResolvers {
  withResolvers?: <T>() => {
    promise: Promise<T>;
    resolve: (value: T | PromiseLike<T>) => void;
    reject: (reason?: unknown) => void;
  };
}

const P = Promise as unknown as WithResolvers;
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
