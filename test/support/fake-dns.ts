// A DNS server on loopback for the email tests (issue 47): answers TXT questions from a table
// (DKIM keys, DMARC policies) over UDP as RFC 1035 says — the app's resolver (c-ares, through
// AGENTCSD_DNS_SERVERS) asks it as it would ask a real one; any other name is NXDOMAIN.
import dgram from 'node:dgram';

export interface FakeDns {
  /** `127.0.0.1:<port>`, for AGENTCSD_DNS_SERVERS. */
  server: string;
  setTxt(name: string, value: string | null): void;
  /** While false, every question is answered SERVFAIL (a resolver that is down for a while). */
  answering(on: boolean): void;
  questions(): string[];
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at]! > 0) {
    labels.push(message.subarray(at + 1, at + 1 + message[at]!).toString('ascii'));
    at += message[at]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'ascii');
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) {
    const piece = bytes.subarray(at, at + 255);
    chunks.push(Buffer.from([piece.length]), piece);
  }
  return Buffer.concat(chunks);
}

export async function startFakeDns(): Promise<FakeDns> {
  const records = new Map<string, string>();
  const asked: string[] = [];
  let serving = true;
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    const { name, end } = readName(query, 12);
    const type = query.readUInt16BE(end);
    asked.push(`${name} ${type}`);
    const value = type === 16 ? records.get(name) : undefined;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    const rcode = !serving ? 2 : value === undefined && !records.has(name) ? 3 : 0;
    header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100) | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(value === undefined || !serving ? 0 : 1, 6);
    const question = query.subarray(12, end + 4);
    const parts: Buffer[] = [header, question];
    if (value !== undefined && serving) {
      const data = txtData(value);
      const answer = Buffer.alloc(12);
      answer.writeUInt16BE(0xc00c, 0); // the question's name
      answer.writeUInt16BE(16, 2);
      answer.writeUInt16BE(1, 4);
      answer.writeUInt32BE(60, 6);
      answer.writeUInt16BE(data.length, 10);
      parts.push(answer, data);
    }
    socket.send(Buffer.concat(parts), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    setTxt(name, value) {
      if (value === null) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), value);
    },
    answering(on) {
      serving = on;
    },
    questions: () => [...asked],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
