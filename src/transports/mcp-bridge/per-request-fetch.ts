/**
 * A `fetch` for the MCP SDK's Streamable HTTP client transport that gives every request its own
 * `AbortSignal` (issue 13 item 8, docs/decisions/mcp.md MCP-34). The transport passes one
 * shared signal (its own `AbortController`'s) to every `fetch`; undici adds an `abort` listener
 * to it per request and the listeners pile up (Node's `MaxListenersExceededWarning` after a few
 * thousand calls, each holding its request alive). Here the shared signal gets one listener
 * in all, which aborts the requests still open; a request counts as open until its reply body
 * ends (an event stream) or its headers arrived (any other reply, which the SDK reads at once).
 */

/** The `fetch` the SDK transport takes. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The requests still open per shared signal, and the one listener that aborts them. */
const open = new WeakMap<AbortSignal, Set<AbortController>>();

function openOn(shared: AbortSignal): Set<AbortController> {
  let set = open.get(shared);
  if (set === undefined) {
    const created = new Set<AbortController>();
    set = created;
    open.set(shared, created);
    shared.addEventListener(
      'abort',
      () => {
        for (const c of created) c.abort(shared.reason);
        created.clear();
      },
      { once: true },
    );
  }
  return set;
}

/** `body` passed through, calling `done` once when it ends, fails or is cancelled. */
function watched(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason);
    },
  });
}

/**
 * `base` (default: the global `fetch`) with a per-request signal: the shared one's abort still
 * cancels every open request, but adds no listener per request.
 */
export function perRequestSignalFetch(base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const shared = init?.signal;
    if (shared === undefined || shared === null || shared.aborted) return base(url, init);
    const own = new AbortController();
    const set = openOn(shared);
    set.add(own);
    const release = (): void => {
      set.delete(own);
    };
    let res: Response;
    try {
      res = await base(url, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    const type = res.headers.get('content-type') ?? '';
    if (res.body === null || !type.includes('text/event-stream')) {
      release();
      return res;
    }
    return new Response(watched(res.body, release), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
