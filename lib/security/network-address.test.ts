// Issue 41 §7: private and metadata addresses in every IPv6 form that carries an IPv4 address —
// the red-team's ::a9fe:a9fe, NAT64 and 6to4 passed before. Decisions only: nothing is dialled.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Groups, isLinkLocalAddress, isPrivateAddress } from './network-address';

const privateForms = [
  // IPv4
  '127.0.0.1', '10.1.2.3', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1',
  // IPv6 proper
  '::', '::1', '[::1]', 'fd00::1', 'fc00::', 'fe80::1%eth0', 'fec0::1', 'ff02::1', '64:ff9b:1::a', '100::1', '2001:db8::1', 'fd00:ec2::254',
  // IPv4 inside IPv6: mapped, translated, compatible, NAT64, 6to4, Teredo — metadata and loopback
  '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:7f00:1', '::ffff:0:169.254.169.254', '::ffff:0:a9fe:a9fe',
  '::a9fe:a9fe', '::169.254.169.254', '::7f00:1', '::10.0.0.1',
  '64:ff9b::a9fe:a9fe', '64:ff9b::169.254.169.254', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1',
  '2002:a9fe:a9fe::', '2002:7f00:1::1', '2002:c0a8:101::', '2002:0a00:0001:0:0:0:0:1',
  '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo, client 169.254.169.254 (inverted bits)
];
const publicForms = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.0.78.9', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4001::1', '::8.8.8.8'];

describe('private addresses in every form', () => {
  it.each(privateForms)('%s is private', (address) => expect(isPrivateAddress(address)).toBe(true));
  it.each(publicForms)('%s is not', (address) => expect(isPrivateAddress(address)).toBe(false));

  it('metadata addresses are link-local in every form', () => {
    for (const address of ['169.254.169.254', '::ffff:a9fe:a9fe', '::a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::', 'fd00:ec2::254', 'fe80::1']) expect(isLinkLocalAddress(address), address).toBe(true);
    for (const address of ['10.0.0.1', '8.8.8.8', '2606:4700::1111']) expect(isLinkLocalAddress(address), address).toBe(false);
  });

  it('any IPv4 address judged inside any IPv6 form is judged as itself (property)', () => {
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((octets) => octets.join('.'));
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    fc.assert(
      fc.property(ipv4, (address) => {
        const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
        const forms = [`::ffff:${address}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${address}`, `2002:${hex(a, b)}:${hex(c, d)}::1`];
        for (const form of forms) {
          expect(embeddedIpv4(ipv6Groups(form)!), form).toBe(address);
          expect(isPrivateAddress(form), form).toBe(isPrivateAddress(address));
        }
      }),
      { numRuns: 500 },
    );
  });
});
