// Which addresses are this machine or its private network: where a document fetched from the
// internet must not send the app (server-side request forgery). IPv4 and IPv6, with every IPv6
// form that carries an IPv4 address inside it — mapped (::ffff:a.b.c.d), translated
// (::ffff:0:a.b.c.d), the old compatible form (::a9fe:a9fe is 169.254.169.254), NAT64
// (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32) — judged by the IPv4 address inside
// (issue 41 §7: those forms passed).
import { isIP } from 'node:net';

function ipv4Octets(address: string): [number, number, number, number] {
  return address.split('.').map(Number) as [number, number, number, number];
}

function ipv4Private(address: string): boolean {
  const [a, b, c] = ipv4Octets(address);
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local (cloud metadata)
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, documentation
    (a === 192 && b === 88 && c === 99) || // 6to4 relays
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224 // multicast and reserved
  );
}

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail becomes the last two); null if it is not one. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = ipv4Octets(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = rest === undefined ? [] : parse(rest);
  const groups = rest === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 ? groups : null;
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/** The IPv4 address an IPv6 address carries (mapped, translated, compatible, NAT64, 6to4, Teredo), or null. */
export function embeddedIpv4(groups: readonly number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroTo(5) && g5 === 0xffff) return ipv4Of(g6, g7); // ::ffff:a.b.c.d
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7); // ::ffff:0:a.b.c.d
  if (zeroTo(6) && (g6 !== 0 || g7 > 1)) return ipv4Of(g6, g7); // ::a.b.c.d (deprecated compatible form)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Of(g6, g7); // NAT64
  if (g0 === 0x2002) return ipv4Of(g1, g2); // 6to4
  if (g0 === 0x2001 && g1 === 0) return ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff); // Teredo: the client, inverted
  return null;
}

function ipv6Private(groups: readonly number[]): boolean {
  const inside = embeddedIpv4(groups);
  if (inside) return ipv4Private(inside);
  const g0 = groups[0]!;
  return (
    groups.every((group, index) => group === 0 || (index === 7 && group === 1)) || // :: and ::1
    (g0 === 0x64 && groups[1] === 0xff9b && groups[2] === 1) || // 64:ff9b:1::/48, local-use NAT64
    (g0 === 0x100 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0) || // 100::/64, discard
    (g0 === 0x2001 && groups[1] === 0xdb8) || // documentation
    (g0 & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (g0 & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (g0 & 0xffc0) === 0xfec0 || // site-local fec0::/10 (deprecated)
    (g0 & 0xff00) === 0xff00 // multicast
  );
}

const plainAddress = (address: string) => address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();

/** True for loopback, private, link-local, unique-local, reserved and unspecified addresses, in any of their forms. */
export function isPrivateAddress(address: string): boolean {
  const plain = plainAddress(address);
  const family = isIP(plain);
  if (family === 4) return ipv4Private(plain);
  const groups = family === 6 ? ipv6Groups(plain) : null;
  return groups ? ipv6Private(groups) : false;
}

/** A link-local address (where clouds answer with their metadata and credentials), in any form. */
export function isLinkLocalAddress(address: string): boolean {
  const plain = plainAddress(address);
  if (isIP(plain) === 4) return plain.startsWith('169.254.');
  const groups = ipv6Groups(plain);
  if (!groups) return false;
  const inside = embeddedIpv4(groups);
  if (inside) return inside.startsWith('169.254.');
  // fe80::/10, and AWS's IPv6 metadata address fd00:ec2::254.
  return (groups[0]! & 0xffc0) === 0xfe80 || (groups[0] === 0xfd00 && groups[1] === 0xec2 && groups.slice(2, 7).every((group) => group === 0) && groups[7] === 0x254);
}

/** A host name that means this machine whatever DNS says. */
export function isLocalHostName(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || isPrivateAddress(name);
}
