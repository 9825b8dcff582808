// The open redirect after sign-in (issue 72 §3): every spelling that leaves our origin goes home.
import { describe, expect, it } from 'vitest';
import { safeNext } from './safe-next';

describe('safeNext', () => {
  it('keeps a path of this app, with its query and fragment', () => {
    expect(safeNext('/sessions/abc?x=1#end')).toBe('/sessions/abc?x=1#end');
    expect(safeNext('/settings/tools')).toBe('/settings/tools');
  });

  it('sends every way out of the origin home: tab, newline, backslash, protocol-relative, absolute, scheme', () => {
    for (const next of ['/\t/other.site', '/\n/other.site', '/\r\n/other.site', '//other.site', '/\\other.site', '\\/other.site', 'https://other.site/', 'javascript:alert(1)', '/\t\\other.site', ' //other.site', '']) {
      expect(safeNext(next), JSON.stringify(next)).toBe('/');
    }
    expect(safeNext(null)).toBe('/');
    expect(safeNext(undefined)).toBe('/');
  });

  it('what it returns resolves on our origin in a browser’s parser', () => {
    for (const next of ['/a', '/\t/other.site', '/..//other.site', '/%2F%2Fother.site']) {
      expect(new URL(safeNext(next), 'http://127.0.0.1:3000/').origin, next).toBe('http://127.0.0.1:3000');
    }
  });
});
