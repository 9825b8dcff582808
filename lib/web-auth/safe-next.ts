// Where a sign-in returns to: a path of this app only. Checking the text was not enough — the URL
// parser drops tabs and newlines, so `/\t/other.site` passed a "starts with one slash" test and
// landed on another origin (issue 72 §3). The value is resolved the way the browser will resolve
// it, against our own origin, and only a result on that origin is kept (as a path that cannot be
// read as another host's).
const OURS = 'http://agentcsd.invalid';

export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, `${OURS}/`);
  } catch {
    return '/';
  }
  // A path that normalises to `//host…` would be protocol-relative where it lands: home instead.
  return url.origin === OURS && !url.pathname.startsWith('//') ? `${url.pathname}${url.search}${url.hash}` : '/';
}
