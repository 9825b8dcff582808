// The WebAuthn relying party a request signs in to (issue 61 §4): fixed by AGENTCSD_PUBLIC_URL
// when the app runs behind a TLS reverse proxy (a phone needs HTTPS), else the name the browser
// used on this machine (`localhost` is a secure context). Passkeys are bound to a name, never to an
// IP address: a browser refuses them on `127.0.0.1`, so the page says to use `localhost`.

export interface RelyingParty {
  /** The domain passkeys are made for (no scheme, no port). */
  id: string;
  /** The exact origin the browser reports in its signed client data. */
  origin: string;
  /** Cookies over HTTPS only. */
  secure: boolean;
}

export class NoRelyingParty extends Error {}

/** The public URL's origin, or undefined when it is not set; a malformed one throws at start. */
export function publicOrigin(publicUrl: string | undefined): URL | undefined {
  if (!publicUrl) return undefined;
  const url = new URL(publicUrl);
  if (url.protocol !== 'https:' && url.hostname !== 'localhost') throw new Error(`AGENTCSD_PUBLIC_URL must be https:// (passkeys need a secure context): ${publicUrl}`);
  return url;
}

export function relyingParty(input: { publicUrl: URL | undefined; host: string | undefined }): RelyingParty {
  if (input.publicUrl) return { id: input.publicUrl.hostname, origin: input.publicUrl.origin, secure: input.publicUrl.protocol === 'https:' };
  const host = input.host ?? '';
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (!name || /^[\d.]+$/.test(name) || name.startsWith('[')) {
    throw new NoRelyingParty(`Passkeys work on a name, not an address: open this page as http://localhost${host.slice(name.length)} (or set AGENTCSD_PUBLIC_URL)`);
  }
  return { id: name, origin: `http://${host.toLowerCase()}`, secure: false };
}
