// Which addresses are this machine or its private network: where a document fetched from the
// internet must not send the app (server-side request forgery). IPv4, IPv6 and IPv4-mapped IPv6.
import { isIP } from 'node:net';

function ipv4Private(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number, number, number];
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local (cloud metadata)
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224 // multicast and reserved
  );
}

/** True for loopback, private, link-local, unique-local and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();
  const family = isIP(plain);
  if (family === 4) return ipv4Private(plain);
  if (family !== 6) return false;
  const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return ipv4Private(mapped[1]!);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(plain);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return ipv4Private(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return plain === '::' || plain === '::1' || /^f[cd]/.test(plain) || /^fe[89ab]/.test(plain) || /^ff/.test(plain);
}

/** A host name that means this machine whatever DNS says. */
export function isLocalHostName(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || isPrivateAddress(name);
}
