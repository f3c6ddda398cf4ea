import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { lineColumnAt, parseJson } from '../../src/core/parse-json.js';

function failure(text: string): PlexusError {
  try {
    parseJson(text);
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('expected a parse failure');
}

describe('parseJson', () => {
  it('parses valid JSON', () => {
    expect(parseJson('{"a":[1,true,null,"x"]}')).toEqual({ a: [1, true, null, 'x'] });
  });

  it('names the line and column where the text breaks', () => {
    const e = failure('{\n  "a": 1,\n  "b": }\n');
    expect(e.code).toBe('PARSE_ERROR');
    expect(e.message).toMatch(/line 3, column 8/);
    expect(e.details).toEqual({ line: 3, column: 8 });
  });

  it('explains trailing commas, unterminated strings and trailing garbage', () => {
    expect(failure('{"a":1,}').message).toMatch(/line 1, column 8: Quoted object key expected/);
    expect(failure('"abc').message).toMatch(/End of string/);
    expect(failure('{"a":1} x').message).toMatch(/Expected end of input/);
  });

  it('says when the input is empty', () => {
    expect(failure('  \n').message).toMatch(/empty/);
    expect(() => parseJson('{', 'agent card')).toThrow(/^agent card is not valid JSON at line 1, column 2/);
  });
});

describe('lineColumnAt', () => {
  it('counts lines and columns from 1', () => {
    expect(lineColumnAt('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumnAt('ab', 99)).toEqual({ line: 1, column: 3 });
  });
});
