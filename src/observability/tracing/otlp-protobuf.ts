/**
 * Finished spans as an OTLP `ExportTraceServiceRequest` in protobuf (issue 16 item 1, "OTLP
 * (HTTP, protobuf or JSON)"; docs/decisions/observability.md OBS-60). The bytes are the ones
 * OpenTelemetry's own `ProtobufTraceSerializer` writes for the same spans — same fields, same
 * order, spans grouped by resource and then by scope in first-seen order — written in one pass
 * into a reused buffer: a message's length is reserved as one byte and widened in place when
 * the message turns out longer than 127 bytes, ASCII strings are copied as they are checked,
 * and ids go from hex to bytes through a table. Traced at 100 %, the exporter's serializer was
 * the largest single cost a call paid for tracing; this one does the same work in a fraction.
 *
 * Field numbers: opentelemetry-proto `trace/v1/trace.proto`, `common/v1/common.proto`,
 * `resource/v1/resource.proto`, `collector/trace/v1/trace_service.proto`.
 */
import type { AttributeValue, Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { StepSpan } from './light-span.js';

/** Wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** OTLP span flags: the context's `is_remote` is known / is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i += 1) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i += 1) {
  HEX_VALUE[65 + i] = 10 + i;
  HEX_VALUE[97 + i] = 10 + i;
}

const INITIAL_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** A growable protobuf writer over one reused buffer. */
class Writer {
  buf = new Uint8Array(INITIAL_BYTES);
  view = new DataView(this.buf.buffer);
  pos = 0;

  reset(): void {
    this.pos = 0;
  }

  ensure(more: number): void {
    const need = this.pos + more;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** An unsigned varint, or a negative number as the 10-byte two's complement of int64. */
  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[this.pos++] = v;
      return;
    }
    let big = BigInt.asUintN(64, BigInt(value));
    while (big > 0x7fn) {
      buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    buf[this.pos++] = Number(big);
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  double(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  /** `[seconds, nanos]` as fixed64 nanoseconds since the epoch. */
  hrTime(time: HrTime): void {
    this.time(time[0], time[1]);
  }

  /**
   * Unix milliseconds (fractional) as fixed64 nanoseconds: the value `hrTime(hrTimeOf(ms))`
   * writes (`light-span.ts`), without the pair.
   */
  unixMs(ms: number): void {
    let seconds = Math.floor(ms / 1000);
    let nanos = Math.round((ms - seconds * 1000) * 1e6);
    if (nanos >= 1e9) {
      seconds += 1;
      nanos -= 1e9;
    }
    this.time(seconds, nanos);
  }

  /** Seconds and nanoseconds since the epoch as fixed64 nanoseconds. */
  time(seconds: number, nanos: number): void {
    // seconds × 1e9 exceeds 2^53 for today's dates: split seconds into its low 16 bits and the
    // rest, so each product stays exact, then carry into the high word.
    const lowPart = (seconds & 0xffff) * 1e9;
    const highPart = Math.floor(seconds / 0x10000) * 1e9;
    const lowWord = (lowPart % 0x100000000) + (highPart % 0x10000) * 0x10000 + nanos;
    const highWord =
      Math.floor(lowPart / 0x100000000) + Math.floor(highPart / 0x10000) + Math.floor(lowWord / 0x100000000);
    this.ensure(8);
    this.view.setUint32(this.pos, lowWord >>> 0, true);
    this.view.setUint32(this.pos + 4, highWord >>> 0, true);
    this.pos += 8;
  }

  /** A length-delimited string. */
  string(text: string): void {
    const length = text.length;
    if (length < 128) {
      this.ensure(length + 1);
      const buf = this.buf;
      let at = this.pos + 1;
      let ascii = true;
      for (let i = 0; i < length; i += 1) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) {
          ascii = false;
          break;
        }
        buf[at++] = code;
      }
      if (ascii) {
        buf[this.pos] = length;
        this.pos = at;
        return;
      }
    }
    this.bytes(encoder.encode(text));
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** A length-delimited id from its hex form (16 or 32 characters). */
  hexId(hex: string): void {
    const length = hex.length >>> 1;
    this.ensure(length + 1);
    const buf = this.buf;
    buf[this.pos++] = length;
    for (let i = 0; i < length; i += 1) {
      const high = HEX_VALUE[hex.charCodeAt(2 * i) & 0x7f] ?? -1;
      const low = HEX_VALUE[hex.charCodeAt(2 * i + 1) & 0x7f] ?? -1;
      buf[this.pos++] = high < 0 || low < 0 ? 0 : (high << 4) | low;
    }
  }

  /** Reserves one byte for a message's length; returns where the message starts. */
  open(): number {
    this.ensure(1);
    this.pos += 1;
    return this.pos;
  }

  /** Writes the length of the message opened at `start`, widening its prefix if needed. */
  close(start: number): void {
    const length = this.pos - start;
    if (length < 0x80) {
      this.buf[start - 1] = length;
      return;
    }
    let extra = 0;
    for (let v = length >>> 7; v > 0; v >>>= 7) extra += 1;
    this.ensure(extra);
    const buf = this.buf;
    buf.copyWithin(start + extra, start, this.pos);
    let at = start - 1;
    let v = length;
    while (v > 0x7f) {
      buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[at] = v;
    this.pos += extra;
  }
}

function writeAnyValue(out: Writer, value: AttributeValue | null | undefined): void {
  if (typeof value === 'string') {
    out.tag(1, LEN);
    out.string(value);
  } else if (typeof value === 'boolean') {
    out.tag(2, VARINT);
    out.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      out.tag(3, VARINT);
      out.varint(value);
    } else {
      out.tag(4, FIXED64);
      out.double(value);
    }
  } else if (Array.isArray(value)) {
    out.tag(5, LEN);
    const array = out.open();
    for (const item of value as readonly (string | number | boolean | null | undefined)[]) {
      out.tag(1, LEN);
      const one = out.open();
      writeAnyValue(out, item);
      out.close(one);
    }
    out.close(array);
  }
}

function writeAttributes(out: Writer, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    out.tag(field, LEN);
    const pair = out.open();
    out.tag(1, LEN);
    out.string(key);
    out.tag(2, LEN);
    const value = out.open();
    writeAnyValue(out, attributes[key]);
    out.close(value);
    out.close(pair);
  }
}

/**
 * A span's fields 1–6: trace and span id, trace state, parent span id, name and kind, the same
 * for an SDK span and a step record (OBS-61).
 */
function writeHead(
  out: Writer,
  traceId: string,
  spanId: string,
  traceState: string | undefined,
  parentSpanId: string | undefined,
  name: string,
  kind: number,
): void {
  out.tag(1, LEN);
  out.hexId(traceId);
  out.tag(2, LEN);
  out.hexId(spanId);
  if (traceState) {
    out.tag(3, LEN);
    out.string(traceState);
  }
  if (parentSpanId) {
    out.tag(4, LEN);
    out.hexId(parentSpanId);
  }
  out.tag(5, LEN);
  out.string(name);
  // OTLP's SpanKind counts from 1 (0 is unspecified); the API's from 0
  out.tag(6, VARINT);
  out.varint(kind + 1);
}

function spanFlags(context: SpanContext, isRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote === true ? IS_REMOTE : 0);
}

function writeSpan(out: Writer, span: ReadableSpan): void {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  writeHead(
    out,
    context.traceId,
    context.spanId,
    context.traceState?.serialize(),
    parent?.spanId,
    span.name,
    span.kind,
  );
  out.tag(7, FIXED64);
  out.hrTime(span.startTime);
  out.tag(8, FIXED64);
  out.hrTime(span.endTime);
  writeAttributes(out, span.attributes, 9);
  out.tag(10, VARINT);
  out.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    out.tag(11, LEN);
    const at = out.open();
    out.tag(1, FIXED64);
    out.hrTime(event.time);
    out.tag(2, LEN);
    out.string(event.name);
    if (event.attributes) writeAttributes(out, event.attributes, 3);
    out.tag(4, VARINT);
    out.varint(event.droppedAttributesCount ?? 0);
    out.close(at);
  }
  out.tag(12, VARINT);
  out.varint(span.droppedEventsCount);
  for (const link of span.links) {
    out.tag(13, LEN);
    const at = out.open();
    out.tag(1, LEN);
    out.hexId(link.context.traceId);
    out.tag(2, LEN);
    out.hexId(link.context.spanId);
    const linkState = link.context.traceState?.serialize();
    if (linkState) {
      out.tag(3, LEN);
      out.string(linkState);
    }
    if (link.attributes) writeAttributes(out, link.attributes, 4);
    out.tag(5, VARINT);
    out.varint(link.droppedAttributesCount ?? 0);
    out.tag(6, FIXED32);
    out.fixed32(spanFlags(link.context, link.context.isRemote));
    out.close(at);
  }
  out.tag(14, VARINT);
  out.varint(span.droppedLinksCount);
  out.tag(15, LEN);
  const status = out.open();
  if (span.status.message) {
    out.tag(2, LEN);
    out.string(span.status.message);
  }
  out.tag(3, VARINT);
  out.varint(span.status.code);
  out.close(status);
  out.tag(16, FIXED32);
  out.fixed32(spanFlags(context, parent?.isRemote));
}

/**
 * A light step span (OBS-61) from its record: the bytes {@link writeSpan} writes for it through
 * its `ReadableSpan` getters, without making the pairs, status and context objects they return.
 */
function writeStep(out: Writer, span: StepSpan): void {
  const parent = span.parentSpanContext;
  writeHead(
    out,
    span.traceId,
    span.spanId,
    parent.traceState?.serialize(),
    parent.spanId,
    span.name,
    span.kind,
  );
  out.tag(7, FIXED64);
  out.unixMs(span.startMs);
  out.tag(8, FIXED64);
  if (span.ended) out.unixMs(span.endMs);
  else out.time(0, 0);
  writeAttributes(out, span.attributes, 9);
  out.tag(10, VARINT);
  out.varint(0);
  out.tag(12, VARINT);
  out.varint(0);
  out.tag(14, VARINT);
  out.varint(0);
  out.tag(15, LEN);
  const status = out.open();
  if (span.statusMessage) {
    out.tag(2, LEN);
    out.string(span.statusMessage);
  }
  out.tag(3, VARINT);
  out.varint(span.statusCode);
  out.close(status);
  out.tag(16, FIXED32);
  out.fixed32((span.traceFlags & 0xff) | HAS_IS_REMOTE | (parent.isRemote === true ? IS_REMOTE : 0));
}

function writeScope(out: Writer, scope: InstrumentationScope): void {
  out.tag(1, LEN);
  const at = out.open();
  out.tag(1, LEN);
  out.string(scope.name);
  if (scope.version) {
    out.tag(2, LEN);
    out.string(scope.version);
  }
  out.close(at);
}

function writeResource(out: Writer, resource: Resource): void {
  out.tag(1, LEN);
  const at = out.open();
  writeAttributes(out, resource.attributes, 1);
  out.tag(2, VARINT);
  out.varint(0);
  out.close(at);
}

/** Spans grouped by resource, then scope, each in first-seen order. */
function grouped(spans: readonly ReadableSpan[]): Map<Resource, Map<InstrumentationScope, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<InstrumentationScope, ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (byScope === undefined) {
      byScope = new Map();
      byResource.set(span.resource, byScope);
    }
    const list = byScope.get(span.instrumentationScope);
    if (list === undefined) byScope.set(span.instrumentationScope, [span]);
    else list.push(span);
  }
  return byResource;
}

const shared = new Writer();

/**
 * The OTLP/protobuf `ExportTraceServiceRequest` of `spans` (a fresh array the caller owns).
 *
 * @example
 * await fetch(`${endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: encodeTraceRequest(spans) });
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const out = shared;
  out.reset();
  for (const [resource, byScope] of grouped(spans)) {
    out.tag(1, LEN);
    const resourceSpans = out.open();
    writeResource(out, resource);
    for (const [scope, list] of byScope) {
      out.tag(2, LEN);
      const scopeSpans = out.open();
      writeScope(out, scope);
      for (const span of list) {
        out.tag(2, LEN);
        const one = out.open();
        if (span instanceof StepSpan) writeStep(out, span);
        else writeSpan(out, span);
        out.close(one);
      }
      if (scope.schemaUrl) {
        out.tag(3, LEN);
        out.string(scope.schemaUrl);
      }
      out.close(scopeSpans);
    }
    if (resource.schemaUrl) {
      out.tag(3, LEN);
      out.string(resource.schemaUrl);
    }
    out.close(resourceSpans);
  }
  const bytes = out.buf.slice(0, out.pos);
  if (out.buf.length > 16 * INITIAL_BYTES) {
    out.buf = new Uint8Array(INITIAL_BYTES);
    out.view = new DataView(out.buf.buffer);
  }
  return bytes;
}
