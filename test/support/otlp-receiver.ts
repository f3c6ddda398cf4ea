/**
 * An OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 taking
 * `POST /v1/traces` in either encoding a node exports with — `application/json` (OTLP/JSON) or
 * `application/x-protobuf` (decoded here by a small protobuf reader over the fields of
 * opentelemetry-proto's trace, common and resource messages) — and keeping every span with the
 * service name of its resource, in OTLP/JSON's shape whatever the encoding.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute value, as OTLP/JSON writes it. */
export interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
/** A span, as OTLP/JSON writes it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}
/** One received span and the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  span: OtlpSpan;
}

/** A protobuf reader over one message. */
class Reader {
  pos = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly end = bytes.length,
  ) {}
  done(): boolean {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.bytes[this.pos++];
      if (byte === undefined || this.pos > this.end) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('varint longer than 10 bytes');
    }
  }
  tag(): { field: number; wire: number } {
    const key = Number(this.varint());
    return { field: key >>> 3, wire: key & 7 };
  }
  sub(): Reader {
    const length = Number(this.varint());
    const start = this.pos;
    this.pos += length;
    if (this.pos > this.end) throw new Error('truncated length-delimited field');
    const reader = new Reader(this.bytes, this.pos);
    reader.pos = start;
    return reader;
  }
  bytesOf(): Uint8Array {
    const r = this.sub();
    return this.bytes.subarray(r.pos, r.end);
  }
  string(): string {
    return Buffer.from(this.bytesOf()).toString('utf8');
  }
  fixed64(): DataView {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.sub();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unknown wire type ${wire}`);
  }
}

function anyValue(r: Reader): OtlpValue {
  const value: OtlpValue = {};
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) value.stringValue = r.string();
    else if (field === 2 && wire === 0) value.boolValue = r.varint() !== 0n;
    else if (field === 3 && wire === 0) {
      const n = BigInt.asIntN(64, r.varint());
      value.intValue =
        n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(n)
          : n.toString();
    } else if (field === 4 && wire === 1) value.doubleValue = r.fixed64().getFloat64(0, true);
    else if (field === 5 && wire === 2) {
      const array = r.sub();
      const values: OtlpValue[] = [];
      while (!array.done()) {
        const item = array.tag();
        if (item.field === 1 && item.wire === 2) values.push(anyValue(array.sub()));
        else array.skip(item.wire);
      }
      value.arrayValue = { values };
    } else r.skip(wire);
  }
  return value;
}

function keyValue(r: Reader): { key: string; value: OtlpValue } {
  let key = '';
  let value: OtlpValue = {};
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) key = r.string();
    else if (field === 2 && wire === 2) value = anyValue(r.sub());
    else r.skip(wire);
  }
  return { key, value };
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function span(r: Reader): OtlpSpan {
  const out: OtlpSpan = { traceId: '', spanId: '', name: '', kind: 0 };
  const attributes: { key: string; value: OtlpValue }[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) out.traceId = hex(r.bytesOf());
    else if (field === 2 && wire === 2) out.spanId = hex(r.bytesOf());
    else if (field === 4 && wire === 2) out.parentSpanId = hex(r.bytesOf());
    else if (field === 5 && wire === 2) out.name = r.string();
    else if (field === 6 && wire === 0) out.kind = Number(r.varint());
    else if (field === 9 && wire === 2) attributes.push(keyValue(r.sub()));
    else if (field === 15 && wire === 2) {
      const status = r.sub();
      out.status = {};
      while (!status.done()) {
        const s = status.tag();
        if (s.field === 2 && s.wire === 2) out.status.message = status.string();
        else if (s.field === 3 && s.wire === 0) out.status.code = Number(status.varint());
        else status.skip(s.wire);
      }
    } else r.skip(wire);
  }
  if (attributes.length > 0) out.attributes = attributes;
  return out;
}

/** The spans of an OTLP/protobuf `ExportTraceServiceRequest`, each with its service name. */
export function decodeOtlpTraces(bytes: Uint8Array): ReceivedSpan[] {
  const received: ReceivedSpan[] = [];
  const request = new Reader(bytes);
  while (!request.done()) {
    const top = request.tag();
    if (top.field !== 1 || top.wire !== 2) {
      request.skip(top.wire);
      continue;
    }
    const resourceSpans = request.sub();
    let service = '';
    const spans: OtlpSpan[] = [];
    while (!resourceSpans.done()) {
      const t = resourceSpans.tag();
      if (t.field === 1 && t.wire === 2) {
        const resource = resourceSpans.sub();
        while (!resource.done()) {
          const a = resource.tag();
          if (a.field === 1 && a.wire === 2) {
            const kv = keyValue(resource.sub());
            if (kv.key === 'service.name') service = kv.value.stringValue ?? '';
          } else resource.skip(a.wire);
        }
      } else if (t.field === 2 && t.wire === 2) {
        const scopeSpans = resourceSpans.sub();
        while (!scopeSpans.done()) {
          const s = scopeSpans.tag();
          if (s.field === 2 && s.wire === 2) spans.push(span(scopeSpans.sub()));
          else scopeSpans.skip(s.wire);
        }
      } else resourceSpans.skip(t.wire);
    }
    for (const one of spans) received.push({ service, span: one });
  }
  return received;
}

interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/** The spans of an OTLP/JSON request body, each with its service name. */
export function jsonOtlpTraces(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as JsonRequest;
  const received: ReceivedSpan[] = [];
  for (const rs of parsed.resourceSpans ?? []) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    for (const ss of rs.scopeSpans ?? [])
      for (const one of ss.spans ?? []) received.push({ service, span: one });
  }
  return received;
}

/** A running receiver. */
export interface OtlpReceiver {
  readonly server: Server;
  /** The base URL to configure as the endpoint. */
  readonly url: string;
  /** Every span received so far. */
  readonly spans: ReceivedSpan[];
  /** The content type of each request, in order. */
  readonly contentTypes: string[];
  /** Requests it could not take: wrong method, path or type, or a body that did not decode. */
  readonly bad: string[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and an ephemeral port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const bad: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      const body = Buffer.concat(chunks);
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error('not POST /v1/traces');
        if (type.includes('application/x-protobuf')) spans.push(...decodeOtlpTraces(body));
        else if (type.includes('json')) spans.push(...jsonOtlpTraces(body.toString('utf8')));
        else throw new Error('neither OTLP encoding');
        contentTypes.push(type);
        res.writeHead(200, { 'content-type': type }).end(type.includes('json') ? '{}' : undefined);
      } catch (error) {
        bad.push(`${req.method} ${req.url} ${type}: ${(error as Error).message}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    bad,
    close: () =>
      new Promise((done) => {
        server.close(() => {
          done();
        });
      }),
  };
}
